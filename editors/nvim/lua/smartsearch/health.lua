-- :checkhealth smartsearch. vim.health.start/ok/... on 0.10+, report_* on older versions.
local clients = require("smartsearch.clients")
local config = require("smartsearch.config")
local progress = require("smartsearch.progress")

local health = vim.health or require("health")
local start = health.start or health.report_start
local ok = health.ok or health.report_ok
local info = health.info or health.report_info
local warn = health.warn or health.report_warn
local error = health.error or health.report_error

local M = {}

local function install_advice(root)
  local commands = config.install_commands(root)
  return {
    "smartsearch-ls is not on a package index; install it from a clone of its repository: " .. commands[1],
    "or: " .. commands[2],
    "or point setup({ cmd = { ... } }) at it",
  }
end

-- The command clients start with: on 0.11 the resolved vim.lsp.config (it may have been set directly);
-- nil when the plugin finds the server itself.
local function configured_cmd()
  local cmd = config.options.cmd
  if vim.fn.has("nvim-0.11") == 1 and vim.lsp.config.smartsearch then
    cmd = vim.lsp.config.smartsearch.cmd
  end
  if cmd == config.auto_cmd then
    return nil
  end
  return cmd
end

-- ok() with the executable and its `--version`, error() with what to do when it does not run.
local function check_command(cmd, source, root)
  if type(cmd) ~= "table" then
    info("cmd is a function; cannot check the executable")
    return
  end
  local exe = vim.fn.exepath(cmd[1])
  if exe == "" then
    error(("server executable not found: %s"):format(cmd[1]), install_advice(root))
    return
  end
  local shown = table.concat(vim.list_extend({ exe }, vim.list_slice(cmd, 2)), " ")
  local output = vim.fn.system(vim.list_extend(vim.deepcopy(cmd), { "--version" }))
  if vim.v.shell_error ~= 0 then
    error(("`%s --version` failed: %s"):format(shown, vim.trim(output)), install_advice(root))
  else
    ok(("server: %s (from %s), version: %s"):format(shown, source, vim.trim(output)))
  end
end

local function check_server()
  local running = clients.all()
  if #running > 0 then
    -- What each running server was started with.
    for _, client in ipairs(running) do
      local root = client.config.root_dir
      local used = config.used[root] or { cmd = client.config.cmd, source = "your configuration" }
      check_command(used.cmd, used.source, root)
    end
    return
  end
  local root = config.root_for(vim.api.nvim_get_current_buf())
  local cmd = configured_cmd()
  if cmd then
    check_command(cmd, "your configuration", root)
    return
  end
  local found, tried = config.find_server(root, { prompt = false })
  if found then
    check_command(found.cmd, found.source, root)
  else
    error(("server not found; looked for %s"):format(table.concat(tried, ", ")), install_advice(root))
  end
end

local function check_judge()
  local model = config.options.judge and config.options.judge.model
  if type(model) ~= "string" or vim.trim(model) == "" then
    error("judge.model is empty", { 'Use "local" (embedded, no network) or a model name like "openai:gpt-4.1-mini"' })
  elseif model == "local" then
    ok("judge: local (embedded in the server, no network)")
  else
    ok(("judge: %s"):format(model))
    info("API keys and base URLs for this judge come from the server's environment (the one Neovim starts it in)")
  end
end

local function check_index()
  local running = clients.all()
  if #running == 0 then
    warn("no smartsearch server running", { "Open a file in a project, or run :SmartSearch {query}" })
    return
  end
  for _, client in ipairs(running) do
    local root = client.config.root_dir or "?"
    local state, lines = progress.index_state(client.id)
    if state == "ready" then
      ok(("index ready: %s"):format(root))
    elseif state == "indexing" then
      info(("indexing: %s"):format(root))
    else
      warn(("no index progress received yet: %s"):format(root))
    end
    for _, line in ipairs(lines) do
      info("  " .. line)
    end
  end
end

function M.check()
  start("smartsearch")
  local v = vim.version()
  ok(("Neovim %d.%d.%d"):format(v.major, v.minor, v.patch))
  check_server()
  check_judge()
  check_index()
end

return M
