-- Headless end-to-end test of the plugin against the real server. Run by tests/editors/test_nvim.py:
--   nvim --headless --clean -u NONE -c "luafile editors/nvim/tests/e2e.lua"
-- Environment: SS_PLUGIN (editors/nvim), SS_WORKSPACE (a fixture copy with a .git folder), SS_PYTHON,
-- SS_CACHE, and the server's own (PYTHONPATH, SYSTEM_ONE_BASE_URL). Exits 0 when every check passed,
-- 1 when one failed, 2 on a Lua error; the reasons go to stderr.
local WHY_WORDS = "[name: parse, config · path: config · code: parse, config"
local failures = {}

local function check(condition, what, detail)
  if not condition then
    table.insert(failures, what .. (detail and (": " .. vim.inspect(detail)) or ""))
  end
  return condition
end

local function wait(ms, condition, what)
  return check(vim.wait(ms, condition, 20), "timed out waiting for " .. what)
end

-- Every vim.notify, kept for the checks (and printed on failure).
local notified = {}
vim.notify = function(message, level)
  table.insert(notified, { message = message, level = level or vim.log.levels.INFO })
end

-- What the server showed with window/showMessage (0.7 writes warnings to stdout, not vim.notify).
local shown = {}
local show_message = vim.lsp.handlers["window/showMessage"]
vim.lsp.handlers["window/showMessage"] = function(err, result, ctx, config)
  table.insert(shown, result)
  return show_message(err, result, ctx, config)
end

local searches_done = 0
local function run_and_wait(command, what)
  local before = searches_done
  vim.cmd(command)
  return wait(30000, function()
    return searches_done > before
  end, what)
end

local function body()
  local plugin = assert(os.getenv("SS_PLUGIN"), "SS_PLUGIN")
  local ws = assert(os.getenv("SS_WORKSPACE"), "SS_WORKSPACE")
  vim.opt.runtimepath:prepend(plugin)
  vim.cmd("runtime plugin/smartsearch.lua")
  vim.api.nvim_create_autocmd("User", {
    pattern = "SmartSearchDone",
    callback = function()
      searches_done = searches_done + 1
    end,
  })

  require("smartsearch").setup({
    cmd = { os.getenv("SS_PYTHON"), "-m", "smartsearch_ls" },
    judge = { model = "system-one:test" },
    cacheDir = os.getenv("SS_CACHE"),
    exclude = { "**/*.lock" },
  })

  -- Start below the root: the client's root must come from the .git marker, not the cwd.
  vim.cmd("cd " .. vim.fn.fnameescape(ws .. "/net"))
  vim.cmd("edit retry.py")
  local clients = require("smartsearch.clients")
  local progress = require("smartsearch.progress")
  local client
  wait(30000, function()
    client = clients.all()[1]
    return client ~= nil and client.initialized
  end, "the client to initialize")
  if not client then
    return
  end
  check(client.config.root_dir == ws, "root from .git", client.config.root_dir)
  check(vim.lsp.buf_is_attached(0, client.id), "the opened file is attached")
  wait(60000, function()
    return progress.index_state(client.id) == "ready"
  end, "index progress to end")

  -- :SmartSearch -> quickfix
  local batches = 0
  vim.api.nvim_create_autocmd("User", {
    pattern = "SmartSearchPartial",
    callback = function()
      batches = batches + 1
    end,
  })
  local lists_before = vim.fn.getqflist({ nr = "$" }).nr
  run_and_wait("SmartSearch parse config file", ":SmartSearch")
  check(batches >= 1, "the quickfix list filled from a streamed batch before the result", batches)
  -- Batches and the result fill one list: the user's earlier lists stay on the quickfix stack.
  check(vim.fn.getqflist({ nr = "$" }).nr == lists_before + 1, "one quickfix list per search", vim.fn.getqflist({ nr = "$" }).nr)
  local qf = vim.fn.getqflist({ title = 1, items = 1, winid = 0 })
  check(qf.title == "SmartSearch: parse config file", "quickfix title", qf.title)
  if check(#qf.items == 1, "one match for 'parse config file'", qf.items) then
    local item = qf.items[1]
    check(vim.api.nvim_buf_get_name(item.bufnr) == ws .. "/config_loader.py", "match file", vim.api.nvim_buf_get_name(item.bufnr))
    check(item.lnum == 4, "match line", item.lnum)
    check(item.col == 1, "match column", item.col)
    -- The why's words are fixed; its `meaning` part appears once background embedding has reached the snippet.
    local text = "parse_config_file (1.00) def parse_config_file(path): " .. WHY_WORDS
    check(vim.startswith(item.text, text) and item.text:sub(-1) == "]", "quickfix text", item.text)
  end
  check(qf.winid ~= 0, "the quickfix window is open")
  local summary = notified[#notified] or {}
  check(
    tostring(summary.message):find('SmartSearch "parse config file": 1 match · judged', 1, true) ~= nil,
    "the coverage summary is notified",
    summary
  )

  -- A match folding copies of its code in other files says how many.
  local format = require("smartsearch.format")
  local folded = { symbol = "evict", relevance = 0.5, kind = vim.NIL, excerpt = "evict()", why = vim.NIL }
  folded.copies = { { path = "dist/cjs/cache.js" }, { path = "vendor/cache.js" } }
  check(format.match_text(folded) == "evict (0.50) [+2 copies] evict()", "copies in the quickfix text", format.match_text(folded))
  folded.copies = {}
  check(format.match_text(folded) == "evict (0.50) evict()", "no copies, no label", format.match_text(folded))

  -- :SmartSearchSymbols -> quickfix
  run_and_wait("SmartSearchSymbols LruCache", ":SmartSearchSymbols")
  local symbols = vim.fn.getqflist()
  local found
  for _, item in ipairs(symbols) do
    if item.text:find("[Class] LruCache", 1, true) == 1 then
      found = item
    end
  end
  if check(found ~= nil, "LruCache in the symbol quickfix list", symbols) then
    check(vim.api.nvim_buf_get_name(found.bufnr) == ws .. "/cache.py", "symbol file", vim.api.nvim_buf_get_name(found.bufnr))
    check(found.lnum == 1, "symbol line", found.lnum)
  end

  -- picker = "select": vim.ui.select gets the matches, choosing one opens it.
  local offered
  vim.ui.select = function(choices, opts, on_choice)
    offered = vim.tbl_map(opts.format_item, choices)
    on_choice(choices[1], 1)
  end
  vim.cmd("cclose")
  local before = searches_done
  require("smartsearch").query("parse config file", { picker = "select" })
  wait(30000, function()
    return searches_done > before
  end, "the select search")
  local label = "config_loader.py:4: parse_config_file (1.00) def parse_config_file(path): " .. WHY_WORDS
  check(offered and vim.startswith(offered[1], label), "select item", offered)
  check(vim.api.nvim_buf_get_name(0) == ws .. "/config_loader.py", "the chosen match is opened", vim.api.nvim_buf_get_name(0))
  check(vim.api.nvim_win_get_cursor(0)[1] == 4, "the cursor is on the match", vim.api.nvim_win_get_cursor(0))
  check(vim.lsp.buf_is_attached(0, client.id), "the opened match is attached to the same client")

  -- An empty query is refused before it reaches the server.
  require("smartsearch").query("   ")
  check((notified[#notified] or {}).level == vim.log.levels.ERROR, "an empty query is an error", notified[#notified])

  -- :checkhealth smartsearch
  vim.cmd("checkhealth smartsearch")
  local report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  check(report:find("(from your configuration), version: smartsearch-ls ", 1, true) ~= nil, "health: server and version", report)
  check(report:find("index ready: " .. ws, 1, true) ~= nil, "health: index ready", report)
  check(report:find("judge: system-one:test", 1, true) ~= nil, "health: judge", report)
  check(report:find("ERROR") == nil, "health: no errors", report)

  -- Nowhere the plugin looks has a server: the message names the install commands that work from a clone.
  local cfg = require("smartsearch.config")
  local saved = { PATH = vim.env.PATH, HOME = vim.env.HOME, PIPX_BIN_DIR = vim.env.PIPX_BIN_DIR }
  vim.env.PATH, vim.env.HOME, vim.env.PIPX_BIN_DIR = "", ws .. "/no-home", nil
  local found, tried = cfg.find_server(ws)
  vim.env.PATH, vim.env.HOME, vim.env.PIPX_BIN_DIR = saved.PATH, saved.HOME, saved.PIPX_BIN_DIR
  check(found == nil, "no server without PATH, .venv or ~/.local/bin", found)
  local missing = cfg.not_found_message(ws, tried or {})
  check(missing:find("pipx install /path/to/smartsearch-ls", 1, true) ~= nil, "missing: pipx command", missing)
  check(missing:find("pip install --user /path/to/smartsearch-ls", 1, true) ~= nil, "missing: pip command", missing)
  check(missing:find(ws .. "/no-home/.local/bin/smartsearch-ls", 1, true) ~= nil, "missing: where it looked", missing)

  local problems = vim.tbl_filter(function(m)
    return m.type <= 2 -- Error or Warning, e.g. about a setting of the wrong type
  end, shown)
  check(#problems == 0, "the server showed no warnings", problems)

  -- Stop the server and wait for it to exit, so no process outlives the test.
  for _, c in ipairs(clients.all()) do
    if vim.fn.has("nvim-0.11") == 1 then
      c:stop()
    else
      vim.lsp.stop_client(c.id)
    end
  end
  -- Generous: an embedding batch already running finishes before the process exits, and on a loaded
  -- 2-core machine that took 7-11 s.
  wait(40000, function()
    return #clients.all() == 0
  end, "the server to stop")
end

local ok, err = pcall(body)
if not ok then
  io.stderr:write("Lua error: " .. tostring(err) .. "\n")
end
for _, failure in ipairs(failures) do
  io.stderr:write("FAILED: " .. failure .. "\n")
end
if not ok or #failures > 0 then
  for _, n in ipairs(notified) do
    io.stderr:write(("notify[%d]: %s\n"):format(n.level, n.message))
  end
end
vim.cmd(ok and (#failures == 0 and "qall!" or "cquit 1") or "cquit 2")
