-- Neovim 0.11+: `vim.lsp.enable("smartsearch")` finds this config on the runtimepath; settings passed
-- to require("smartsearch").setup() or vim.lsp.config("smartsearch", {...}) are merged over it.
return require("smartsearch.config").client_config(nil)
