-- n-body: the Jovian planets and the Sun, integrated with a simple
-- symplectic step of 0.01 years. lua nbody.lua [STEPS]: the system's
-- energy before and after. STEPS = 1000 gives -0.169075164 and
-- -0.169087605 (the Benchmarks Game's published check values).
local STEPS = tonumber(arg and arg[1]) or 1000

local PI = math.pi
local SOLAR_MASS = 4 * PI * PI
local DAYS = 365.24
local sqrt = math.sqrt

-- x, y, z in AU; velocities in AU/day, scaled to AU/year; masses in Suns
local function body(x, y, z, vx, vy, vz, mass)
  return { x = x, y = y, z = z, vx = vx * DAYS, vy = vy * DAYS, vz = vz * DAYS,
           mass = mass * SOLAR_MASS }
end

local bodies = {
  body(0, 0, 0, 0, 0, 0, 1),                                   -- Sun
  body(4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
       1.66007664274403694e-03, 7.69901118419740425e-03, -6.90460016972063023e-05,
       9.54791938424326609e-04),                               -- Jupiter
  body(8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
       -2.76742510726862411e-03, 4.99852801234917238e-03, 2.30417297573763929e-05,
       2.85885980666130812e-04),                               -- Saturn
  body(1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
       2.96460137564761618e-03, 2.37847173959480950e-03, -2.96589568540237556e-05,
       4.36624404335156298e-05),                               -- Uranus
  body(1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
       2.68067772490389322e-03, 1.62824170038242295e-03, -9.51592254519715870e-05,
       5.15138902046611451e-05),                               -- Neptune
}
local n = #bodies

-- the Sun moves so that the total momentum is zero
local function offset_momentum()
  local px, py, pz = 0, 0, 0
  for i = 1, n do
    local b = bodies[i]
    px = px + b.vx * b.mass
    py = py + b.vy * b.mass
    pz = pz + b.vz * b.mass
  end
  local sun = bodies[1]
  sun.vx = -px / SOLAR_MASS
  sun.vy = -py / SOLAR_MASS
  sun.vz = -pz / SOLAR_MASS
end

local function energy()
  local e = 0
  for i = 1, n do
    local a = bodies[i]
    e = e + 0.5 * a.mass * (a.vx * a.vx + a.vy * a.vy + a.vz * a.vz)
    for j = i + 1, n do
      local b = bodies[j]
      local dx, dy, dz = a.x - b.x, a.y - b.y, a.z - b.z
      e = e - a.mass * b.mass / sqrt(dx * dx + dy * dy + dz * dz)
    end
  end
  return e
end

local function advance(dt)
  for i = 1, n do
    local a = bodies[i]
    local ax, ay, az, am = a.x, a.y, a.z, a.mass
    local avx, avy, avz = a.vx, a.vy, a.vz
    for j = i + 1, n do
      local b = bodies[j]
      local dx, dy, dz = ax - b.x, ay - b.y, az - b.z
      local d2 = dx * dx + dy * dy + dz * dz
      local mag = dt / (d2 * sqrt(d2))
      local bm = b.mass * mag
      avx, avy, avz = avx - dx * bm, avy - dy * bm, avz - dz * bm
      local amag = am * mag
      b.vx = b.vx + dx * amag
      b.vy = b.vy + dy * amag
      b.vz = b.vz + dz * amag
    end
    a.vx, a.vy, a.vz = avx, avy, avz
    a.x = ax + dt * avx
    a.y = ay + dt * avy
    a.z = az + dt * avz
  end
end

offset_momentum()
io.write(string.format("%0.9f\n", energy()))
for _ = 1, STEPS do advance(0.01) end
io.write(string.format("%0.9f\n", energy()))
