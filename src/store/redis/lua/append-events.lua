--[[ append-events: JobEventLog.append on Redis: the job events of one event-loop turn, each its own entry of
  the event stream (field `e`, its JSON), in one call rather than one XADD command each.
  KEYS[1] the event stream ({prefix:events}, a slot of its own)
  ARGV[1] MAXLEN (approximate trim)  ARGV[2..] the events, JSON
  Returns: the number of entries appended.
]]
for i = 2, #ARGV do
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[i])
end
return #ARGV - 1
