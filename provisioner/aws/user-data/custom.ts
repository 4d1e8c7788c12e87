import { toBase64 } from './bootstrap-options.js';

/** A Custom image bootstraps itself: its spec.userData goes to EC2 exactly as written. */
export function customUserData(custom: string | undefined): string {
  return toBase64(custom ?? '');
}
