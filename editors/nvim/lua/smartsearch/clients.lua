-- Starting, finding and talking to the smartsearch client of a root, on every supported Neovim:
-- 0.11+ vim.lsp.config/enable (plus vim.lsp.start for explicit commands), 0.8-0.10 vim.lsp.start,
-- 0.7 vim.lsp.start_client + buf_attach_client.
local config = require("smartsearch.config")

local M = {}

local NAME = "smartsearch"
local has_011 = vim.fn.has("nvim-0.11") == 1
local has_08 = vim.fn.has("nvim-0.8") == 1

local function all_clients()
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ name = NAME })
  end
  return vim.tbl_filter(function(client)
    return client.name == NAME
  end, vim.lsp.get_active_clients())
end

M.all = all_clients

-- Only buffers that are files get attached (didOpen of a scratch buffer means nothing to the server).
local function attachable(bufnr)
  return vim.api.nvim_buf_is_loaded(bufnr)
    and vim.bo[bufnr].buftype == ""
    and vim.api.nvim_buf_get_name(bufnr) ~= ""
end

local function for_root(root)
  for _, client in ipairs(all_clients()) do
    if client.config.root_dir == root then
      return client
    end
  end
end

-- The client serving the buffer's root, started (and the buffer attached) if needed. opts.autostart:
-- opened by an autocmd rather than asked for, so a missing server is reported once per root.
function M.ensure(bufnr, opts)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local root = config.root_for(bufnr)
  local attach = attachable(bufnr)
  local client = for_root(root)
  if client then
    if attach and not vim.lsp.buf_is_attached(bufnr, client.id) then
      vim.lsp.buf_attach_client(bufnr, client.id)
    end
    return client
  end
  local cfg
  if has_011 then
    -- The resolved config: lsp/smartsearch.lua merged with setup() or the user's own vim.lsp.config().
    cfg = vim.deepcopy(vim.lsp.config[NAME])
    cfg.root_dir = root
  end
  local cmd, missing
  if cfg and cfg.cmd ~= config.auto_cmd then
    cmd = cfg.cmd -- the configured one (setup() or the user's own vim.lsp.config())
    config.used[root] = { cmd = cmd, source = "your configuration" }
  else
    cmd, missing = config.cmd_for(root)
  end
  if not cmd then
    if opts and opts.autostart then
      config.report_missing(root, missing)
    else
      vim.notify(missing, vim.log.levels.ERROR)
    end
    return nil
  end
  local id
  if cfg then
    cfg.cmd = cmd
    id = vim.lsp.start(cfg, { bufnr = bufnr, attach = attach })
  elseif has_08 and attach then
    id = vim.lsp.start(config.client_config(root, cmd), { bufnr = bufnr })
  else
    id = vim.lsp.start_client(config.client_config(root, cmd))
    if id and attach then
      vim.lsp.buf_attach_client(bufnr, id)
    end
  end
  if not id then
    local shown = type(cmd) == "table" and table.concat(cmd, " ") or "cmd"
    vim.notify(
      ("SmartSearch: could not start `%s`; see :checkhealth smartsearch and :LspLog."):format(shown),
      vim.log.levels.ERROR
    )
    return nil
  end
  return vim.lsp.get_client_by_id(id)
end

-- Starts clients for file buffers as they are opened.
function M.autostart()
  if has_011 then
    -- Assigned, not merged with a previous setup() (lists would merge index by index); Neovim still
    -- layers it over lsp/smartsearch.lua. enable() starts clients on FileType.
    vim.lsp.config[NAME] = config.client_config(nil)
    vim.lsp.enable(NAME)
    return
  end
  local group = vim.api.nvim_create_augroup("smartsearch", { clear = true })
  vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
    group = group,
    callback = function(args)
      if attachable(args.buf) then
        M.ensure(args.buf, { autostart = true })
      end
    end,
  })
  -- setup() may run after files were opened (lazy loading).
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if attachable(bufnr) then
      M.ensure(bufnr, { autostart = true })
    end
  end
end

-- Runs fn(client) once the client has finished `initialize` (requests must not overtake it).
function M.when_ready(client, fn)
  local waited = 0
  local function check()
    if client.initialized then
      fn(client)
    elseif vim.lsp.get_client_by_id(client.id) == nil or waited > 60000 then
      vim.notify("SmartSearch: the server did not start; see :checkhealth smartsearch", vim.log.levels.ERROR)
    else
      waited = waited + 50
      vim.defer_fn(check, 50)
    end
  end
  check()
end

-- Method-call syntax on 0.11 (the dot forms are deprecated there), dot syntax before.
function M.request(client, method, params, handler)
  if has_011 then
    return client:request(method, params, handler)
  end
  return client.request(method, params, handler)
end

function M.cancel(client, request_id)
  if has_011 then
    return client:cancel_request(request_id)
  end
  return client.cancel_request(request_id)
end

function M.notify(client, method, params)
  if has_011 then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

return M
