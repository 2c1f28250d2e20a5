import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { storeModelTest } from './store.model.js';

storeModelTest('sqlite', () => new SqliteStore({ path: ':memory:', nodeId: 'model' }), 150);
