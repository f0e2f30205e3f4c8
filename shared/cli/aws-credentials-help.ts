/** How to give `vigil` the AWS credentials it signs calls to a deployed API with (the SDK's default chain). */
export const AWS_CREDENTIALS_HELP =
  'Calls to a deployed API (https://….execute-api.<region>.amazonaws.com) are signed with your AWS credentials, and none were usable. ' +
  "Set AWS_PROFILE to a profile of ~/.aws/config (an SSO one after 'aws sso login --profile NAME'; run it again when its session expired), " +
  'or put AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones) in the environment.';
