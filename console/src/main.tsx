/** The delayq console: a single page over the public HTTP API, routed by the URL hash. */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, token } from './api.js';
import { DeadLetters } from './views/dead.js';
import { DueHistogram } from './views/due.js';
import { JobPage } from './views/job.js';
import { Login } from './views/login.js';
import { SchedulePage, Schedules } from './views/schedules.js';
import { Search } from './views/search.js';
import { Topics } from './views/topics.js';

function useHash(): string {
  const [hash, setHash] = useState(location.hash || '#/topics');
  useEffect(() => {
    const onChange = () => setHash(location.hash || '#/topics');
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return hash;
}

const NAV = [
  ['#/topics', 'Topics'],
  ['#/due', 'Due times'],
  ['#/jobs', 'Jobs'],
  ['#/dead', 'Dead letters'],
  ['#/schedules', 'Schedules'],
] as const;

function App() {
  const hash = useHash();
  // unknown: not checked yet; needs: the server wants a token (none given or refused).
  const [auth, setAuth] = useState<'unknown' | 'ok' | 'needs'>('unknown');
  const [authError, setAuthError] = useState('');

  const check = async () => {
    try {
      await get('/v1/stats');
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

  const [path, search = ''] = hash.slice(1).split('?');
  const params = new URLSearchParams(search);
  let view;
  if (path!.startsWith('/job/')) view = <JobPage id={decodeURIComponent(path!.slice(5))} />;
  else if (path!.startsWith('/schedule/'))
    view = <SchedulePage name={decodeURIComponent(path!.slice('/schedule/'.length))} />;
  else if (path === '/schedules') view = <Schedules />;
  else if (path === '/due') view = <DueHistogram topic={params.get('topic') ?? ''} />;
  else if (path === '/jobs') view = <Search params={params} />;
  else if (path === '/dead') view = <DeadLetters topic={params.get('topic') ?? ''} />;
  else view = <Topics />;
  return (
    <>
      <header>
        <strong>delayq</strong>
        <nav>
          {NAV.map(([href, label]) => (
            <a href={href} class={path === href.slice(1) ? 'active' : ''}>
              {label}
            </a>
          ))}
        </nav>
        {token.get() && (
          <button class="link" onClick={() => (token.clear(), setAuth('needs'))}>
            Log out
          </button>
        )}
      </header>
      <main>{view}</main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
