-- Options: the plugin's own (cmd, picker, root_markers) and the server settings, which keep the
-- server's names (protocol.md) so a snippet from the server docs can be pasted as is.
local M = {}

local SERVER_KEYS = {
  "judge",
  "threshold",
  "concurrency",
  "candidates",
  "limit",
  "exclude",
  "cacheDir",
  "workingSet",
  "workspaceSymbol",
}

M.defaults = {
  -- nil: find the server (M.find_server); a list: start exactly that.
  cmd = nil,
  -- "quickfix" or "select" (vim.ui.select, so telescope-ui-select and the like take over when installed).
  picker = "quickfix",
  root_markers = { ".git" },
  judge = { model = "local", timeout = 30 },
  threshold = 0.5,
  concurrency = 8,
  candidates = 128,
  limit = 10,
  exclude = {},
  -- nil: the server's default, $XDG_CACHE_HOME/smartsearch-ls (else ~/.cache/smartsearch-ls).
  cacheDir = nil,
  workingSet = true,
  workspaceSymbol = { judged = true },
}

M.options = vim.deepcopy(M.defaults)

function M.set(opts)
  opts = opts or {}
  local merged = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts)
  -- Lists replace the default instead of being merged index by index.
  for _, key in ipairs({ "cmd", "root_markers", "exclude" }) do
    merged[key] = opts[key] or M.defaults[key]
  end
  M.options = merged
end

-- The settings object the server reads from initializationOptions and section "smartSearch".
function M.server_settings()
  local settings = {}
  for _, key in ipairs(SERVER_KEYS) do
    settings[key] = vim.deepcopy(M.options[key])
  end
  return settings
end

local function parent_of_marker(found)
  local full = vim.fn.fnamemodify(found, ":p"):gsub("[/\\]$", "")
  return vim.fn.fnamemodify(full, ":h")
end

-- The nearest folder above the buffer's file holding a root marker (`.git` can be a folder or, in a
-- worktree, a file), else the current directory. Plain finddir/findfile: vim.fs is missing on 0.7.
function M.root_for(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local start = name ~= "" and vim.fn.fnamemodify(name, ":p:h") or vim.fn.getcwd()
  local best
  for _, marker in ipairs(M.options.root_markers) do
    for _, find in ipairs({ vim.fn.finddir, vim.fn.findfile }) do
      local found = find(marker, vim.fn.fnameescape(start) .. ";")
      if found ~= "" then
        local dir = parent_of_marker(found)
        if best == nil or #dir > #best then
          best = dir
        end
      end
    end
  end
  return best or (vim.fn.fnamemodify(vim.fn.getcwd(), ":p"):gsub("[/\\]$", ""))
end

local NAME = "smartsearch"
local is_windows = vim.fn.has("win32") == 1
local EXE = is_windows and "smartsearch-ls.exe" or "smartsearch-ls"

-- This session's answers to Neovim's trust prompt, per executable (so "ignore" is asked once).
local trusted = {}

-- Whether a workspace's own executable may run. A checked-out folder must not choose what runs, so it
-- takes Neovim's trust list (|vim.secure|, 0.9+), which asks the first time; nil when it would have to
-- ask and `prompt` is false, false on 0.7/0.8 (no trust list).
local function may_run(path, prompt)
  if trusted[path] ~= nil then
    return trusted[path]
  end
  if not (vim.secure and vim.secure.read) then
    return false
  end
  if not prompt then
    return nil
  end
  local ok, contents = pcall(vim.secure.read, path)
  trusted[path] = ok and contents ~= nil
  return trusted[path]
end

-- Where `pip install --user` and pipx put scripts; a Neovim started before the first install may not
-- have it on PATH yet.
local function user_bin_dirs()
  local dirs = {}
  local pipx = vim.env.PIPX_BIN_DIR
  if pipx and pipx ~= "" then
    table.insert(dirs, pipx)
  end
  local home = vim.env.HOME
  table.insert(dirs, (home and home ~= "" and home or vim.fn.expand("~")) .. "/.local/bin")
  return dirs
end

-- The server to start for `root` when `cmd` is not set: the root's .venv (once trusted), PATH, then
-- the user script folders. Returns { cmd = {...}, source = "..." }, or nil and the places looked in.
-- opts.prompt = false: never show the trust prompt (for :checkhealth).
function M.find_server(root, opts)
  local prompt = not (opts and opts.prompt == false)
  local tried = {}
  if root then
    local venv = ("%s/.venv/%s/%s"):format(root, is_windows and "Scripts" or "bin", EXE)
    if vim.fn.executable(venv) == 1 then
      local allowed = may_run(venv, prompt)
      if allowed then
        return { cmd = { venv }, source = "the project's .venv" }
      end
      local why = allowed == nil and "not trusted yet: Neovim asks when the server starts"
        or (vim.secure and "not trusted (:help :trust)" or "needs Neovim 0.9+ to trust it, or set cmd")
      table.insert(tried, ("%s (%s)"):format(venv, why))
    else
      table.insert(tried, venv)
    end
  end
  local on_path = vim.fn.exepath(EXE)
  if on_path ~= "" then
    return { cmd = { on_path }, source = "PATH" }
  end
  table.insert(tried, EXE .. " on PATH")
  for _, dir in ipairs(user_bin_dirs()) do
    local candidate = dir .. "/" .. EXE
    if vim.fn.executable(candidate) == 1 then
      return { cmd = { candidate }, source = dir }
    end
    table.insert(tried, candidate)
  end
  return nil, tried
end

-- The checkout to name in the install command: the root when it is a smartsearch-ls clone.
local function checkout(root)
  local pyproject = root and (root .. "/pyproject.toml")
  if pyproject and vim.fn.filereadable(pyproject) == 1 then
    for _, line in ipairs(vim.fn.readfile(pyproject, "", 40)) do
      if line:match('^name%s*=%s*"smartsearch%-ls"') then
        return root
      end
    end
  end
  return "/path/to/smartsearch-ls"
end

-- The commands that install the server from a clone (it is on no package index).
function M.install_commands(root)
  local dir = checkout(root)
  return { "pipx install " .. dir, "pip install --user " .. dir }
end

function M.not_found_message(root, tried)
  local install = M.install_commands(root)
  return ("SmartSearch: smartsearch-ls not found (looked for %s). It is not on a package index: install it "
    .. "from a clone of its repository with `%s` (or `%s`), or set `cmd` in setup()."):format(
    table.concat(tried, ", "),
    install[1],
    install[2]
  )
end

-- What started (or would start) the server of each root: { cmd, source }, for :checkhealth.
M.used = {}

-- The command for `root`: the configured one, else the found server; nil and a message when none.
function M.cmd_for(root)
  if M.options.cmd then
    M.used[root] = { cmd = M.options.cmd, source = "your configuration" }
    return M.options.cmd
  end
  local found, tried = M.find_server(root)
  if not found then
    return nil, M.not_found_message(root, tried)
  end
  M.used[root] = found
  return found.cmd
end

-- Neovim 0.11's `cmd` when none is configured: the found server for the client's root. root_dir
-- below only calls on_dir() once it is found, so the error is a last resort.
function M.auto_cmd(dispatchers, client_config)
  local cmd, message = M.cmd_for(client_config.root_dir)
  if not cmd then
    error(message, 0)
  end
  return vim.lsp.rpc.start(cmd, dispatchers, {
    cwd = client_config.cmd_cwd,
    env = client_config.cmd_env,
    detached = client_config.detached,
  })
end

-- Roots already told that the server is missing: once per root and session, not once per buffer.
local reported = {}

function M.report_missing(root, message)
  if not reported[root] then
    reported[root] = true
    vim.notify(message, vim.log.levels.ERROR)
  end
end

-- 0.11: start (call on_dir) only where the server can be found, and say once why not elsewhere.
local function root_dir_011(bufnr, on_dir)
  local root = M.root_for(bufnr)
  local resolved = vim.lsp.config[NAME]
  if resolved and resolved.cmd == M.auto_cmd then
    local found, tried = M.find_server(root)
    if not found then
      M.report_missing(root, M.not_found_message(root, tried))
      return
    end
  end
  on_dir(root)
end

-- The client configuration; `root_dir` is a path (with `cmd` from M.cmd_for), or nil for 0.11's
-- vim.lsp.config, where functions find the root per buffer and the server per root.
function M.client_config(root_dir, cmd)
  local settings = M.server_settings()
  return {
    name = NAME,
    cmd = root_dir and cmd or (M.options.cmd or M.auto_cmd),
    root_dir = root_dir or root_dir_011,
    init_options = settings,
    -- Answers workspace/configuration for section "smartSearch".
    settings = { smartSearch = settings },
    handlers = { ["$/progress"] = require("smartsearch.progress").handler },
    on_init = function(client)
      -- 0.7 neither advertises workspace/configuration nor pushes settings: push them, as lspconfig does.
      if vim.fn.has("nvim-0.8") == 0 then
        client.notify("workspace/didChangeConfiguration", { settings = client.config.settings })
      end
    end,
  }
end

return M
