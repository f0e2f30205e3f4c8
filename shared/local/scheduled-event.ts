import { randomUUID } from 'node:crypto';
import type { ScheduledEvent } from 'aws-lambda';

export const scheduledEvent = (region: string): ScheduledEvent => ({
  version: '0',
  id: randomUUID(),
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: '000000000000',
  time: new Date().toISOString(),
  region,
  resources: [],
  detail: {},
});
