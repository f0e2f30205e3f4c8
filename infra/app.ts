import { App } from 'aws-cdk-lib';
import { buildVigil } from './vigil-app.js';

const app = new App();
buildVigil(app);
app.synth();
