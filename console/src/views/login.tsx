import { useState } from 'preact/hooks';

/** Shown when the server has tokens configured: the token is kept in this tab's sessionStorage only. */
export function Login({ error, onToken }: { error: string; onToken: (token: string) => void }) {
  const [value, setValue] = useState('');
  return (
    <form
      class="login"
      onSubmit={(e) => {
        e.preventDefault();
        if (value.trim()) onToken(value.trim());
      }}
    >
      <h1>delayq console</h1>
      <p>This server needs a bearer token.</p>
      <input
        name="token"
        type="password"
        placeholder="token"
        autoFocus
        value={value}
        onInput={(e) => setValue((e.target as HTMLInputElement).value)}
      />
      <button type="submit">Log in</button>
      {error && <p class="error">{error}</p>}
    </form>
  );
}
