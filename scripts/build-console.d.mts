/** Bundles the web console into console/dist/ and answers that directory. */
export function buildConsole(): Promise<string>;
