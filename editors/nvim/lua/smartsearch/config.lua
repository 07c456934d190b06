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
  "workspaceSymbol",
}

M.defaults = {
  cmd = { "smartsearch-ls" },
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

-- The client configuration; `root_dir` is a path, or nil for 0.11's vim.lsp.config, where a
-- function computes it per buffer.
function M.client_config(root_dir)
  local settings = M.server_settings()
  return {
    name = "smartsearch",
    cmd = M.options.cmd,
    root_dir = root_dir or function(bufnr, on_dir)
      on_dir(M.root_for(bufnr))
    end,
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
