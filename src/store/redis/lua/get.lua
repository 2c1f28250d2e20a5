--[[ get: one job's record, history included (read only).
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] id
  Returns: the record as stored, or nil when there is no such job.
]]
return redis.call('HGET', KEYS[1], ARGV[2])
