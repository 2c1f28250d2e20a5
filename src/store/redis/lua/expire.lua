--[[ expire: ready → expired for jobs whose ttl ran out (runAt + ttlMs <= now), at most ARGV[3].
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] now (ms)  ARGV[3] limit  ARGV[4] node index
  Returns: the expired jobs, a flat list id, topic, id, topic…
]]
return expireDue(KEYS, ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]))
