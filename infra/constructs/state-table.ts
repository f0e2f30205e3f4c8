import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption, type GlobalSecondaryIndexProps } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import {
  AVAILABLE_INDEX,
  AVAILABLE_INDEX_KEYS,
  POOL_ITEMS_INDEX,
  POOL_ITEMS_INDEX_ATTRIBUTES,
  POOL_ITEMS_INDEX_KEYS,
  TIMER_INDEX,
  TIMER_INDEX_ATTRIBUTES,
  TTL_ATTRIBUTE,
  WORKER_INDEX,
} from '../../shared/adapters/aws/jobs-table.js';

export interface StateTableProps {
  readonly deletionProtection: boolean;
  /** The regional table also indexes workflow items by worker (extensions, worker failure). */
  readonly withWorkerIndex: boolean;
}

/**
 * The single table of a region manager or of the gate, declared exactly like
 * `shared/adapters/aws/jobs-table.ts` creates it for the emulators: pk/sk, the sparse `timers`
 * index the backstop sweep queries, and TTL so finished jobs expire; the regional table also has
 * `byWorker`, the sparse `available` index of claimable pool items and `poolItems` (a pool's item states).
 */
export class StateTable extends Construct {
  public readonly table: Table;
  /** Its global secondary indexes, by name: each has throttle metrics of its own. */
  public readonly indexNames: string[] = [];

  constructor(scope: Construct, id: string, props: StateTableProps) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      sortKey: { name: 'sk', type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      encryption: TableEncryption.AWS_MANAGED,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TTL_ATTRIBUTE,
      deletionProtection: props.deletionProtection,
      removalPolicy: props.deletionProtection ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.addIndex({
      indexName: TIMER_INDEX,
      partitionKey: { name: 'timerShard', type: AttributeType.STRING },
      sortKey: { name: 'timerDueAt', type: AttributeType.NUMBER },
      projectionType: ProjectionType.INCLUDE,
      nonKeyAttributes: TIMER_INDEX_ATTRIBUTES,
    });
    if (props.withWorkerIndex) {
      this.addIndex({
        indexName: WORKER_INDEX,
        partitionKey: { name: 'gsiWorkerId', type: AttributeType.STRING },
        sortKey: { name: 'pk', type: AttributeType.STRING },
        projectionType: ProjectionType.INCLUDE,
        nonKeyAttributes: ['index'],
      });
      // Pool claims read a few available items from here instead of the whole pool.
      this.addIndex({
        indexName: AVAILABLE_INDEX,
        partitionKey: { name: AVAILABLE_INDEX_KEYS.partition, type: AttributeType.STRING },
        sortKey: { name: AVAILABLE_INDEX_KEYS.sort, type: AttributeType.STRING },
        projectionType: ProjectionType.KEYS_ONLY,
      });
      // A pool's counts and its items in one state, read without the items' payloads. Keyed by the
      // `poolId` every pool row already has, so adding it to a live table backfills existing pools.
      this.addIndex({
        indexName: POOL_ITEMS_INDEX,
        partitionKey: { name: POOL_ITEMS_INDEX_KEYS.partition, type: AttributeType.STRING },
        sortKey: { name: POOL_ITEMS_INDEX_KEYS.sort, type: AttributeType.STRING },
        projectionType: ProjectionType.INCLUDE,
        nonKeyAttributes: POOL_ITEMS_INDEX_ATTRIBUTES,
      });
    }
  }

  private addIndex(props: GlobalSecondaryIndexProps): void {
    this.table.addGlobalSecondaryIndex(props);
    this.indexNames.push(props.indexName);
  }
}
