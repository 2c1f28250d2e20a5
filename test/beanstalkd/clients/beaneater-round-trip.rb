# A beaneater user's round trip, as the Debian package installs it (ruby-beaneater). Usage:
# ruby beaneater-round-trip.rb <port> <tube>; prints one JSON transcript (no server-specific ids),
# compared across delayq and beanstalkd by test/beanstalkd/third-party-clients.test.ts.
require 'beaneater'
require 'json'

port, tube_name = ARGV
b = Beaneater.new("127.0.0.1:#{port}")
out = {}
tube = b.tubes[tube_name]
b.tubes.watch!(tube_name)

put = tube.put('hello from ruby', pri: 100, ttr: 30)
job = b.tubes.reserve
out['reserved same job'] = job.id == put[:id]
out['reserved body'] = job.body
job.delete
out['peek deleted'] = b.jobs.find(put[:id]).nil? ? 'not found' : 'found'

put = tube.put('work', pri: 5, ttr: 10)
job = b.tubes.reserve
job.release(pri: 5, delay: 1)
out['after release'] = b.jobs.find(put[:id]).stats.state
begin
  b.tubes.reserve(0)
  out['reserve during delay'] = 'got one'
rescue Beaneater::TimedOutError
  out['reserve during delay'] = 'timed out'
end
job = b.tubes.reserve(5)
out['reserved after delay'] = job.id == put[:id]
job.touch
job.bury(pri: 5)
stats = job.stats
out['after bury'] = [stats.state, stats.pri, stats.tube, stats.buries, stats.reserves]
out['peek buried same job'] = tube.peek(:buried).id == job.id
out['kicked'] = tube.kick(10)[:id].to_i
out['after kick'] = job.stats.state
out['peek ready same job'] = tube.peek(:ready).id == job.id
job.delete

put = tube.put('later', pri: 1024, delay: 60, ttr: 10)
out['peek delayed same job'] = tube.peek(:delayed).id == put[:id]
out['tube delayed'] = tube.stats.current_jobs_delayed
out['tube name'] = tube.stats.name
b.jobs.find(put[:id]).kick
out['after kick-job'] = b.jobs.find(put[:id]).stats.state
b.jobs.find(put[:id]).delete

put = tube.put('paused')
tube.pause(1)
begin
  b.tubes.reserve(0)
  out['reserve while paused'] = 'got one'
rescue Beaneater::TimedOutError
  out['reserve while paused'] = 'timed out'
end
job = b.tubes.reserve(5)
out['reserved after pause'] = job.id == put[:id]
job.delete

out['watching'] = b.tubes.watched.map(&:name).sort
out['using'] = b.tubes.used.name
puts JSON.generate(out)
b.close
