export const time = (at: number | null | undefined): string =>
  at == null ? '—' : new Date(at).toISOString().replace('T', ' ').replace('Z', '');

export function duration(ms: number): string {
  const abs = Math.abs(ms);
  const text =
    abs < 1000
      ? `${Math.round(abs)} ms`
      : abs < 120_000
        ? `${(abs / 1000).toFixed(1)} s`
        : abs < 7_200_000
          ? `${Math.round(abs / 60_000)} min`
          : abs < 172_800_000
            ? `${(abs / 3_600_000).toFixed(1)} h`
            : `${(abs / 86_400_000).toFixed(1)} d`;
  return ms < 0 ? `${text} ago` : `in ${text}`;
}

export const seconds = (s: number | undefined): string =>
  s === undefined ? '—' : s < 1 ? `${Math.round(s * 1000)} ms` : `${s.toFixed(2)} s`;
