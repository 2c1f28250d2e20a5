--[[ dedup-claim: the claim of a topic's dedup key (store/dedup-claims.ts), one key outside the partitions.
  KEYS[1] the claim ({prefix:dedup:<topic>|<key>}, a hash: id, at (when claimed), until (when its window ends))
  ARGV[1] "claim" or "release"  ARGV[2] the push's job id  ARGV[3] now (ms)  ARGV[4] until (ms)
  ARGV[5] claim: the id of a claim to take over even though its window has not ended ("" = none)
  Returns, claim: {} when the push now holds the claim, else {id, at} of the live claim holding it.
          release: 1 when the push's claim was dropped, else 0.
  The key expires when its window ends (by `now`: Redis TIME on a shared store), and a claim whose `until`
  has passed counts as ended even before that.
]]
local key, id = KEYS[1], ARGV[2]
if ARGV[1] == 'release' then
  if redis.call('HGET', key, 'id') == id then return redis.call('DEL', key) end
  return 0
end
local now, untilAt = tonumber(ARGV[3]), tonumber(ARGV[4])
local held = redis.call('HMGET', key, 'id', 'at', 'until')
if held[1] and tonumber(held[3]) > now and held[1] ~= ARGV[5] then return {held[1], tonumber(held[2])} end
redis.call('HSET', key, 'id', id, 'at', now, 'until', untilAt)
redis.call('PEXPIRE', key, untilAt - now)
return {}
