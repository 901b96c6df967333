// At the end of every test file: what it started outside a test, or in a concurrent one, and left
// running is killed (test/helpers/owned-children.ts). Registered first, it runs after the file's own afterAll (hooks run in reverse).
import { afterAll } from 'vitest';
import { killOwned } from '../helpers/owned-children.js';

afterAll(killOwned);
