-- User commands; they work before setup() too (with the default options).
if vim.g.loaded_smartsearch then
  return
end
vim.g.loaded_smartsearch = true

vim.api.nvim_create_user_command("SmartSearch", function(args)
  require("smartsearch").query(args.args)
end, { nargs = "+", desc = "Find code by behavior (smartsearch-ls)" })

vim.api.nvim_create_user_command("SmartSearchSymbols", function(args)
  require("smartsearch").symbols(args.args)
end, { nargs = "*", desc = "Workspace symbols from smartsearch-ls into quickfix" })

vim.api.nvim_create_user_command("SmartSearchCancel", function()
  require("smartsearch").cancel()
end, { nargs = 0, desc = "Cancel the running SmartSearch" })
