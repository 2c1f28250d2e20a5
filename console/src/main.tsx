/** The delayq console: a single page over the public HTTP API, routed by the URL hash (router.ts). */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, token } from './api.js';
import { setShownZone, shownZone, viewerZone } from './format.js';
import { useRoute } from './router.js';
import { BulkActions } from './views/bulk.js';
import { DeadLetters } from './views/dead.js';
import { DueHistogram } from './views/due.js';
import { JobPage } from './views/job.js';
import { Login } from './views/login.js';
import { Running } from './views/running.js';
import { ScheduleEditor } from './views/schedule-editor.js';
import { SchedulePage, Schedules } from './views/schedules.js';
import { Search } from './views/search.js';
import { Sinks } from './views/sinks.js';
import { TopicPage } from './views/topic.js';
import { Topics } from './views/topics.js';

const NAV = [
  ['/topics', 'Topics'],
  ['/running', 'Running'],
  ['/jobs', 'Jobs'],
  ['/bulk', 'Bulk'],
  ['/due', 'Due times'],
  ['/dead', 'Dead letters'],
  ['/schedules', 'Schedules'],
  ['/sinks', 'Sinks'],
] as const;

/** The view of a path; `name` is what follows `/job/`, `/topic/`, `/schedule/`. */
function view(path: string, params: URLSearchParams) {
  const [, first = '', ...rest] = path.split('/');
  const name = rest.join('/');
  switch (first) {
    case 'topic':
      return <TopicPage key={name} topic={name} params={params} />;
    case 'job':
      // keyed by id: a message or an open form of one job never shows on the next one opened
      return <JobPage key={name} id={name} />;
    case 'schedule':
      return <SchedulePage key={name} name={name} />;
    case 'new-schedule':
      return <ScheduleEditor key="new" />;
    case 'running':
      return <Running params={params} />;
    case 'jobs':
      return <Search params={params} />;
    case 'bulk':
      return <BulkActions params={params} />;
    case 'due':
      return <DueHistogram params={params} />;
    case 'dead':
      return <DeadLetters params={params} />;
    case 'schedules':
      return <Schedules />;
    case 'sinks':
      return <Sinks params={params} />;
    default:
      return <Topics params={params} />;
  }
}

function App() {
  const { path, params } = useRoute();
  // unknown: not checked yet; needs: the server wants a token (none given or refused).
  const [auth, setAuth] = useState<'unknown' | 'ok' | 'needs'>('unknown');
  const [authError, setAuthError] = useState('');
  const [zone, setZone] = useState(shownZone());

  const check = async () => {
    try {
      await get('/v1/topics?limit=1');
      setAuth('ok');
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) {
        setAuthError(token.get() ? 'That token was refused.' : '');
        token.clear();
        setAuth('needs');
      } else setAuth('ok');
    }
  };
  useEffect(() => void check(), []);

  if (auth === 'unknown') return <p class="muted">Connecting…</p>;
  if (auth === 'needs') return <Login error={authError} onToken={(t) => (token.set(t), void check())} />;

  const section = `/${path.split('/')[1] ?? ''}`;
  return (
    <>
      <header>
        <strong>delayq</strong>
        <nav>
          {NAV.map(([to, label]) => (
            <a
              href={`#${to}`}
              class={section === to || (to === '/schedules' && section === '/schedule') ? 'active' : ''}
            >
              {label}
            </a>
          ))}
        </nav>
        <label class="zone">
          times in{' '}
          <select
            name="zone"
            value={zone === 'UTC' ? 'UTC' : 'local'}
            onChange={(e) => {
              setShownZone((e.target as HTMLSelectElement).value as 'UTC' | 'local');
              setZone(shownZone());
            }}
          >
            <option value="UTC">UTC</option>
            <option value="local">{viewerZone()} (this browser)</option>
          </select>
        </label>
        {token.get() && (
          <button class="link" onClick={() => (token.clear(), setAuth('needs'))}>
            Log out
          </button>
        )}
      </header>
      {/* keyed by zone: every time on the page is drawn again in the zone chosen */}
      <main key={zone}>{view(path, params)}</main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
