import { ValueSigner } from '../../src/platform/slack/signed-value.js';

/** The signer of unit and integration tests (a fixed secret of their own). */
export const TEST_SIGNER = ValueSigner.fromSecret('test-signing-secret');
