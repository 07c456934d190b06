-- :SmartSearch and :SmartSearchSymbols: send the request, show progress, fill quickfix (or
-- vim.ui.select), and say what the search covered when it ends.
local clients = require("smartsearch.clients")
local config = require("smartsearch.config")
local format = require("smartsearch.format")
local items = require("smartsearch.items")
local progress = require("smartsearch.progress")

local M = {}

local REQUEST_CANCELLED = -32800

-- The search in flight: {client, id, token}; a new search or :SmartSearchCancel cancels it.
local pending
local searches = 0

local function done()
  -- For mappings, statuslines and tests that want to know when results are in.
  vim.api.nvim_exec_autocmds("User", { pattern = "SmartSearchDone", modeline = false })
end

local function echo(message)
  vim.api.nvim_echo({ { "SmartSearch: " .. message } }, false, {})
end

function M.cancel()
  if pending then
    clients.cancel(pending.client, pending.id)
    progress.unwatch(pending.client.id, pending.token)
    progress.unwatch_partial(pending.client.id, pending.token .. "-partial")
    pending = nil
    echo("cancelled")
  end
end

local function open(item)
  vim.cmd("edit " .. vim.fn.fnameescape(item.filename))
  vim.api.nvim_win_set_cursor(0, { item.lnum, item.col - 1 })
end

-- One search's quickfix list: created by its first batch, replaced in place after (the quickfix stack keeps the
-- user's earlier lists), opened once (the cursor is not pulled into it at every batch).
local function fill_quickfix(list, title, qf_items)
  if list.id and vim.fn.getqflist({ id = list.id }).id == list.id then
    vim.fn.setqflist({}, "r", { id = list.id, title = title, items = qf_items })
  else
    vim.fn.setqflist({}, " ", { title = title, items = qf_items })
    list.id = vim.fn.getqflist({ id = 0 }).id
  end
  if #qf_items > 0 and not list.opened then
    list.opened = true
    vim.cmd("copen")
  end
end

-- labels: how vim.ui.select shows each item (quickfix shows filename:lnum: text by itself); list: the search's
-- quickfix list so far (see fill_quickfix).
local function show(title, qf_items, labels, picker, list)
  if picker == "select" then
    local indices = {}
    for i = 1, #qf_items do
      indices[i] = i
    end
    vim.ui.select(indices, {
      prompt = title,
      format_item = function(i)
        return labels[i]
      end,
    }, function(i)
      if i then
        open(qf_items[i])
      end
    end)
    return
  end
  fill_quickfix(list or {}, title, qf_items)
end

local function quickfix_items(matches, client)
  return items.from_matches(matches, client.offset_encoding, format.match_text)
end

-- opts: mode ("auto" | "behavior" | "symbol" | "path"), picker (defaults to the setup() option).
-- With the quickfix picker the list fills as the server streams its best matches so far (each batch replaces
-- the list), and holds the whole ranked result at the end.
function M.query(query, opts)
  opts = opts or {}
  query = vim.trim(query or "")
  if query == "" then
    vim.notify("SmartSearch: describe the code to find, e.g. :SmartSearch parse the config file", vim.log.levels.ERROR)
    return
  end
  local client = clients.ensure(0)
  if not client then
    return
  end
  M.cancel()
  searches = searches + 1
  local token = ("smartsearch-%d-%d"):format(vim.fn.getpid(), searches)
  echo(("searching %q..."):format(query))
  clients.when_ready(client, function()
    progress.watch(client.id, token, function(value)
      if value.kind == "report" and value.message then
        echo(value.message)
      end
    end)
    local picker = opts.picker or config.options.picker
    local params = { query = query, workDoneToken = token, mode = opts.mode }
    local list = {}
    if picker == "quickfix" then
      params.partialResultToken = token .. "-partial"
      progress.watch_partial(client.id, params.partialResultToken, function(value)
        if type(value) == "table" and type(value.matches) == "table" then
          fill_quickfix(list, "SmartSearch: " .. query .. " (searching...)", quickfix_items(value.matches, client))
          vim.api.nvim_exec_autocmds("User", { pattern = "SmartSearchPartial", modeline = false })
        end
      end)
    end
    local ok, id = clients.request(client, "smartSearch/query", params, function(err, result)
      progress.unwatch(client.id, token)
      progress.unwatch_partial(client.id, token .. "-partial")
      if pending and pending.token == token then
        pending = nil
      end
      if err then
        if list.id then -- a streamed list stays, but says the search did not finish
          local why = err.code == REQUEST_CANCELLED and "cancelled" or "failed"
          vim.fn.setqflist({}, "r", { id = list.id, title = "SmartSearch: " .. query .. " (" .. why .. ")" })
        end
        if err.code ~= REQUEST_CANCELLED then
          vim.notify("SmartSearch: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
        end
      else
        local qf_items = quickfix_items(result.matches, client)
        local labels = {}
        for i, match in ipairs(result.matches) do
          -- The server's path is relative to its workspace folder: shorter than the file name.
          labels[i] = ("%s:%d: %s"):format(match.path, qf_items[i].lnum, qf_items[i].text)
        end
        show("SmartSearch: " .. query, qf_items, labels, picker, list)
        vim.notify(format.end_message(query, result))
      end
      done()
    end)
    if ok then
      pending = { client = client, id = id, token = token }
    else
      progress.unwatch_partial(client.id, token .. "-partial")
    end
  end)
end

function M.symbols(query)
  local client = clients.ensure(0)
  if not client then
    return
  end
  clients.when_ready(client, function()
    clients.request(client, "workspace/symbol", { query = query or "" }, function(err, result)
      if err then
        vim.notify("SmartSearch: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      else
        local qf_items = items.from_symbols(result, client.offset_encoding)
        show("SmartSearch symbols: " .. (query or ""), qf_items, {}, "quickfix")
        if #qf_items == 0 then
          vim.notify(("SmartSearch: no symbol matches %q"):format(query or ""))
        end
      end
      done()
    end)
  end)
end

return M
