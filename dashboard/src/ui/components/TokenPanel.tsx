import { useSignal } from '@preact/signals';
import { setToken, token, unauthorized } from '../models/api.js';

/** Lets the user paste the bearer token (LOOPGUARD_TOKEN); opens by itself after a 401. */
export function TokenPanel({ onClose }: { onClose: () => void }) {
  const draft = useSignal(token.value);
  const save = (e: Event) => {
    e.preventDefault();
    setToken(draft.value);
    onClose();
  };
  return (
    <form class={`token-panel${unauthorized.value ? ' alert' : ''}`} onSubmit={save}>
      {unauthorized.value ? (
        <p role="alert">
          <strong>401 Unauthorized.</strong> This dashboard was started with{' '}
          <code>LOOPGUARD_TOKEN</code>; paste that token to see data.
          {token.value && ' The stored token was rejected.'}
        </p>
      ) : (
        <p>
          Bearer token for a dashboard started with <code>LOOPGUARD_TOKEN</code> (kept in this
          browser's localStorage).
        </p>
      )}
      <label>
        <span class="sr-only">Token</span>
        <input
          type="password"
          autocomplete="off"
          placeholder="paste token"
          value={draft.value}
          onInput={(e) => {
            draft.value = e.currentTarget.value;
          }}
        />
      </label>
      <button type="submit">Save</button>
      {token.value && (
        <button
          type="button"
          onClick={() => {
            setToken('');
            draft.value = '';
          }}
        >
          Forget token
        </button>
      )}
    </form>
  );
}
