-- Work-done progress per client: which folders are being indexed (for :checkhealth and the index state)
-- and the callbacks of running searches, which watch their own workDoneToken; and a search's streamed partial
-- results, which arrive as $/progress on its partialResultToken and are not work-done progress at all.
local M = {}

local INDEXING_PREFIX = "Indexing"

-- client_id -> { indexing = {token -> title}, indexed = {title -> end message}, watchers = {token -> fn},
--               partials = {token -> fn} }
local clients = {}

local function state(client_id)
  clients[client_id] = clients[client_id] or { indexing = {}, indexed = {}, watchers = {}, partials = {} }
  return clients[client_id]
end

function M.handler(err, result, ctx, config)
  local s = state(ctx.client_id)
  local value = result.value
  local partial = s.partials[result.token]
  if partial then
    -- A batch of matches, not progress: statuslines fed by Neovim's handler must not see it.
    partial(value)
    return
  end
  if type(value) == "table" then
    local watcher = s.watchers[result.token]
    if watcher then
      watcher(value)
    elseif value.kind == "begin" and type(value.title) == "string" and vim.startswith(value.title, INDEXING_PREFIX) then
      s.indexing[result.token] = value.title
    elseif value.kind == "end" and s.indexing[result.token] then
      s.indexed[s.indexing[result.token]] = value.message or ""
      s.indexing[result.token] = nil
    end
  end
  -- Neovim's own handler keeps feeding statuslines (LspProgressUpdate on 0.7, LspProgress on 0.10+).
  return vim.lsp.handlers["$/progress"](err, result, ctx, config)
end

function M.watch(client_id, token, fn)
  state(client_id).watchers[token] = fn
end

function M.unwatch(client_id, token)
  state(client_id).watchers[token] = nil
end

function M.watch_partial(client_id, token, fn)
  state(client_id).partials[token] = fn
end

function M.unwatch_partial(client_id, token)
  state(client_id).partials[token] = nil
end

-- "indexing", "ready" or "starting", with the titles being indexed or the end messages per folder.
function M.index_state(client_id)
  local s = state(client_id)
  if next(s.indexing) then
    return "indexing", vim.tbl_values(s.indexing)
  end
  if next(s.indexed) then
    local lines = {}
    for title, message in pairs(s.indexed) do
      table.insert(lines, message ~= "" and (title .. ": " .. message) or title)
    end
    table.sort(lines)
    return "ready", lines
  end
  return "starting", {}
end

return M
