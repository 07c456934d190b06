-- smartsearch.nvim: find code by behavior with the smartsearch-ls language server.
--   require("smartsearch").setup({ judge = { model = "local" }, picker = "quickfix" })
-- See :help smartsearch.
local clients = require("smartsearch.clients")
local config = require("smartsearch.config")
local search = require("smartsearch.search")

local M = {}

-- Sets the options, starts a client per root as files are opened, and pushes changed settings to the
-- clients already running (so calling setup() again re-configures them).
function M.setup(opts)
  config.set(opts)
  local settings = config.server_settings()
  for _, client in ipairs(clients.all()) do
    client.config.settings = { smartSearch = settings }
    clients.notify(client, "workspace/didChangeConfiguration", { settings = client.config.settings })
  end
  clients.autostart()
end

M.query = search.query
M.symbols = search.symbols
M.cancel = search.cancel

return M
