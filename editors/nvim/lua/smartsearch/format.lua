-- How results read in quickfix, vim.ui.select and messages. Pure string functions.
local M = {}

local MAX_LINE = 120

-- JSON null arrives as nil in objects, but as vim.NIL elsewhere: treat both as absent.
local function present(value)
  return value ~= nil and value ~= vim.NIL
end

-- The excerpt's first line that says something; blank lines and lone brackets say nothing.
function M.first_meaningful_line(excerpt)
  for _, line in ipairs(vim.split(excerpt or "", "\n", { plain = true })) do
    local text = vim.trim(line) -- also drops the \r of CRLF endings
    if text:find("[%w\128-\255]") then
      if #text > MAX_LINE then
        text = text:sub(1, MAX_LINE - 3) .. "..."
      end
      return text
    end
  end
  return ""
end

-- Why a judged match ranked: where the query's words were found, and how close in meaning.
function M.why_text(why)
  if not present(why) then
    return ""
  end
  local parts = {}
  for _, place in ipairs({ { "name", "name" }, { "path", "path" }, { "code", "body" } }) do
    local words = present(why.words) and why.words[place[2]] or nil
    if type(words) == "table" and #words > 0 then
      table.insert(parts, place[1] .. ": " .. table.concat(words, ", "))
    end
  end
  if present(why.semantic) then
    table.insert(parts, ("meaning %.2f"):format(why.semantic))
  end
  return table.concat(parts, " · ")
end

-- `+1 copy` when the same code is in other files too (two builds of one library), folded into this match.
function M.copies_text(match)
  local count = present(match.copies) and #match.copies or 0
  if count == 0 then
    return ""
  end
  return ("+%d %s"):format(count, count == 1 and "copy" or "copies")
end

-- Quickfix text: `symbol (0.87) first excerpt line  [why]`, with [test] for tests and [+1 copy] for copies.
function M.match_text(match)
  local parts = {}
  if present(match.symbol) then
    table.insert(parts, match.symbol)
  end
  table.insert(parts, ("(%.2f)"):format(match.relevance))
  if match.kind == "test" then
    table.insert(parts, "[test]")
  end
  local copies = M.copies_text(match)
  if copies ~= "" then
    table.insert(parts, "[" .. copies .. "]")
  end
  local line = M.first_meaningful_line(match.excerpt)
  if line ~= "" then
    table.insert(parts, line)
  end
  local why = M.why_text(match.why)
  if why ~= "" then
    table.insert(parts, "[" .. why .. "]")
  end
  return table.concat(parts, " ")
end

-- One line on what was searched, e.g. "1 match · judged 4/4 shortlisted of 6 snippets in 4 files by local".
function M.coverage_summary(result)
  local c = result.coverage
  local count = #result.matches == 1 and "1 match" or (#result.matches .. " matches")
  if (result.omittedMatches or 0) > 0 then
    count = count .. (" (+%d over the limit)"):format(result.omittedMatches)
  end
  local scope = c.files .. " files"
  if (c.skippedFiles or 0) > 0 then
    scope = scope .. (", %d skipped"):format(c.skippedFiles)
  end
  local work
  if present(result.judge) then
    work = ("judged %d/%d shortlisted of %d snippets in %s by %s"):format(
      c.judged,
      c.shortlisted,
      c.snippets,
      scope,
      result.judge
    )
  else
    work = ("%s match in %s"):format(result.mode, scope)
  end
  return count .. " · " .. work .. (c.complete and "" or " · INCOMPLETE")
end

-- What to tell the user when a search ends, and how loudly.
function M.end_message(query, result)
  local lines = { ("SmartSearch %q: %s"):format(query, M.coverage_summary(result)) }
  -- The server's warnings say why the answer may be incomplete (and that no match proves no absence).
  for _, warning in ipairs(result.warnings or {}) do
    table.insert(lines, "  " .. warning)
  end
  local level = result.coverage.complete and vim.log.levels.INFO or vim.log.levels.WARN
  return table.concat(lines, "\n"), level
end

return M
