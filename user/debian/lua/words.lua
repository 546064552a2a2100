-- words: string and table work. Makes a text of N sentences from a
-- made-up vocabulary (a fixed pseudo-random sequence), then counts its
-- words with gsub, swaps every "key=value" with gsub and captures, sorts
-- the words by count with table.sort and prints the commonest with
-- string.format, and a hash of the swapped text. lua words.lua [N]
-- (default 3000); tests/qemu/test_realprogs.py computes the same in Python.
local N = tonumber(arg and arg[1]) or 3000

local seed = 42
local function rnd(n)            -- 0 .. n-1
  seed = (seed * 1103515245 + 12345) % 2147483648
  return (seed >> 8) % n
end

local syllables = { "ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ba", "de", "fo", "gu" }
local vocab = {}
for i = 1, 200 do
  local w = {}
  for k = 1, 1 + rnd(3) do w[k] = syllables[1 + rnd(#syllables)] end
  vocab[i] = table.concat(w)
end

local ends = { ".", "!", "?" }
local sentences = {}
for s = 1, N do
  local words = {}
  for k = 1, 3 + rnd(8) do
    words[k] = vocab[1 + rnd(1 + rnd(#vocab))]   -- the first words are the commonest
  end
  local line = table.concat(words, " "):gsub("^%l", string.upper)
  if s % 5 == 0 then
    local key = vocab[1 + rnd(#vocab)]
    local value = vocab[1 + rnd(#vocab)]
    line = line .. " " .. key .. "=" .. value
  end
  sentences[s] = line .. ends[1 + rnd(#ends)]
end
local text = table.concat(sentences, " ")

local freq, total = {}, 0
text:lower():gsub("%a+", function(w)
  freq[w] = (freq[w] or 0) + 1
  total = total + 1
end)
local swapped, swaps = text:gsub("(%a+)=(%a+)", "%2=%1")

local distinct = {}
for w in pairs(freq) do distinct[#distinct + 1] = w end
table.sort(distinct, function(a, b)
  if freq[a] ~= freq[b] then return freq[a] > freq[b] end
  return a < b
end)

for rank = 1, 10 do
  local w = distinct[rank]
  io.write(string.format("%2d %-10s %5d %6.3f%%\n", rank, w, freq[w], 100 * freq[w] / total))
end

local h = 2166136261                      -- FNV-1a, 32 bits
for i = 1, #swapped do
  h = ((h ~ swapped:byte(i)) * 16777619) & 0xffffffff
end
io.write(string.format("words %d, distinct %d, swaps %d, length %d, fnv %08x\n",
  total, #distinct, swaps, #swapped, h))
