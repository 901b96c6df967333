// Lint is part of `npm test`: typescript-eslint's recommended rules, plus a ban on console.* in
// lib/ (output goes through the CLI's own printer, which redacts).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'reports/', 'dist/', 'scratch/', 'fixtures/'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  { files: ['lib/**/*.ts'], rules: { 'no-console': 'error' } },
);
