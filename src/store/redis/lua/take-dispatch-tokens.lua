--[[ take-dispatch-tokens: DispatchRates.take and giveBack on Redis: one topic's token bucket, refilled by
  Redis's own clock (TIME), so every process on this Redis draws from the same bucket at the same rate.
  KEYS[1] the bucket ({prefix:rate:<topic>}, a hash: tokens, at (ms), a slot of its own)
  ARGV[1] tokens per second  ARGV[2] burst (the most it holds)  ARGV[3] tokens to take  ARGV[4] tokens to give back
  Returns: { granted, ms until a whole token is in the bucket again (0: one is left) }.
  A missing bucket is full; it expires once it would be full again, so idle topics keep no key.
]]
local perMs = tonumber(ARGV[1]) / 1000
local burst = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local back = tonumber(ARGV[4])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(held[1]) or burst
local at = tonumber(held[2]) or now
if now > at then
  tokens = tokens + (now - at) * perMs
  at = now
end
tokens = math.min(burst, tokens + back)
local granted = math.max(0, math.min(want, math.floor(tokens)))
tokens = tokens - granted
redis.call('HSET', KEYS[1], 'tokens', string.format('%.6f', tokens), 'at', at)
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / perMs) + 1000)
local waitMs = 0
if tokens < 1 then waitMs = math.ceil((1 - tokens) / perMs) end
return { granted, waitMs }
