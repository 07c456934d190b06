-- LSP locations to quickfix items. Columns are byte offsets in Neovim but UTF-16 (or the negotiated
-- encoding) in LSP, so a non-zero character is converted against the line's text.
local M = {}

local function line_text(fname, lnum)
  local bufnr = vim.fn.bufnr(fname)
  if bufnr ~= -1 and vim.api.nvim_buf_is_loaded(bufnr) then
    return vim.api.nvim_buf_get_lines(bufnr, lnum - 1, lnum, false)[1] or ""
  end
  local lines = vim.fn.filereadable(fname) == 1 and vim.fn.readfile(fname, "", lnum) or {}
  return lines[lnum] or ""
end

local function byte_col(fname, lnum, character, encoding)
  if character == 0 or encoding == "utf-8" then
    return character + 1
  end
  local text = line_text(fname, lnum)
  local ok, index
  if vim.fn.has("nvim-0.11") == 1 then
    ok, index = pcall(vim.str_byteindex, text, encoding, character, false)
  else
    ok, index = pcall(vim.str_byteindex, text, character, encoding == "utf-16")
  end
  return (ok and index or character) + 1
end

-- {filename, lnum, col} of an LSP Location's start.
function M.position(location, encoding)
  local fname = vim.uri_to_fname(location.uri)
  local start = location.range.start
  local lnum = start.line + 1
  return { filename = fname, lnum = lnum, col = byte_col(fname, lnum, start.character, encoding) }
end

function M.from_matches(matches, encoding, text_of)
  local items = {}
  for _, match in ipairs(matches) do
    local item = M.position(match.location, encoding)
    item.text = text_of(match)
    table.insert(items, item)
  end
  return items
end

-- WorkspaceSymbol[] or SymbolInformation[] as `[Kind] name  container`, in the server's order.
function M.from_symbols(symbols, encoding)
  local items = {}
  for _, symbol in ipairs(symbols or {}) do
    -- Ranges always come with our server; a URI-only location would have nowhere to jump.
    if symbol.location and symbol.location.range then
      local item = M.position(symbol.location, encoding)
      local kind = vim.lsp.protocol.SymbolKind[symbol.kind] or "Symbol"
      item.text = ("[%s] %s"):format(kind, symbol.name)
      if type(symbol.containerName) == "string" and symbol.containerName ~= "" then
        item.text = item.text .. "  " .. symbol.containerName
      end
      table.insert(items, item)
    end
  end
  return items
end

return M
