import { z } from 'zod';
import { intakeKind } from '../../src/platform/intake.js';

/** A kind of intake record for tests of the intake itself: any object payload. */
export const TEST_KIND = intakeKind('test.kind', z.looseObject({}));

/** A test kind named `name`, with any object payload (and `version`, default 1). */
export function anyKind(name: string, version = 1) {
  return intakeKind(name, z.looseObject({}), { version });
}
