import { describe } from 'vitest';
import { itHoldsForSeeds } from './support/seed-range.js';

describe('deterministic simulation, first half of the CI seeds', () => itHoldsForSeeds(1, 500));
