-- fannkuch-redux: over every permutation of 1..N, count the prefix
-- reversals ("flips") until 1 is in front. lua fannkuch.lua [N]: a
-- checksum (flips added for the even permutations, subtracted for the
-- odd ones, in the order of the prefix rotations below) and the
-- most flips. N = 7 gives 228 and 16; N = 12 gives 3968050 and 65.
local N = tonumber(arg and arg[1]) or 7

local perm, work, count = {}, {}, {}
for i = 1, N do perm[i] = i end

local maxflips, checksum, sign = 0, 0, 1
local r = N
while true do
  -- count[i]: how many more rotations the (i+1)-prefix has before the
  -- next longer one rotates
  while r ~= 1 do count[r - 1] = r; r = r - 1 end

  local first = perm[1]
  if first ~= 1 then
    for i = 1, N do work[i] = perm[i] end
    local flips = 0
    local k = first
    repeat
      -- reverse work[1..k]
      local lo, hi = 1, k
      while lo < hi do
        work[lo], work[hi] = work[hi], work[lo]
        lo, hi = lo + 1, hi - 1
      end
      flips = flips + 1
      k = work[1]
    until k == 1
    if flips > maxflips then maxflips = flips end
    checksum = checksum + sign * flips
  end
  sign = -sign

  -- the next permutation: rotate the shortest prefix whose counter is not spent
  while true do
    if r == N then
      io.write(string.format("%d\nPfannkuchen(%d) = %d\n", checksum, N, maxflips))
      return
    end
    local p1 = perm[1]
    for i = 1, r do perm[i] = perm[i + 1] end
    perm[r + 1] = p1
    count[r] = count[r] - 1
    if count[r] > 0 then break end
    r = r + 1
  end
end
