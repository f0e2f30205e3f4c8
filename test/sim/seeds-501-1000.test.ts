import { describe } from 'vitest';
import { itHoldsForSeeds } from './support/seed-range.js';

describe('deterministic simulation, second half of the CI seeds', () => itHoldsForSeeds(501, 500));
