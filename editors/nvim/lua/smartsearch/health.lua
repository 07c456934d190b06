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

local INSTALL = { "Install the server: pip install smartsearch-ls", "Or point setup({ cmd = { ... } }) at it" }

-- The command clients start with: on 0.11 the resolved vim.lsp.config (it may have been set directly).
local function server_cmd()
  if vim.fn.has("nvim-0.11") == 1 and vim.lsp.config.smartsearch then
    return vim.lsp.config.smartsearch.cmd
  end
  return config.options.cmd
end

local function check_server()
  local cmd = server_cmd()
  if type(cmd) ~= "table" then
    info("cmd is a function; cannot check the executable")
    return
  end
  if vim.fn.executable(cmd[1]) == 0 then
    error(("server executable not found: %s"):format(cmd[1]), INSTALL)
    return
  end
  ok(("server executable: %s"):format(vim.fn.exepath(cmd[1])))
  local output = vim.fn.system(vim.list_extend(vim.deepcopy(cmd), { "--version" }))
  if vim.v.shell_error ~= 0 then
    error(("`%s --version` failed: %s"):format(table.concat(cmd, " "), vim.trim(output)), INSTALL)
  else
    ok(("server version: %s"):format(vim.trim(output)))
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
