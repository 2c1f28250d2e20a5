// The cycle check of `npm run check`: no cycles between modules of src/, type-only imports included
// (ESLint's import-x/no-cycle skips those, and a type cycle still ties two layers together).
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'Arrows point down (docs/architecture.md): a module never reaches itself again through its imports.',
      from: { path: '^src' },
      to: { circular: true },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
  },
};
