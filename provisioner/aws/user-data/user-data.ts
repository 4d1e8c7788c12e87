import { al2UserData } from './al2.js';
import { al2023UserData } from './al2023.js';
import { bootstrapOptions, type UserDataInput } from './bootstrap-options.js';
import { bottlerocketUserData, bottlerocketVersion } from './bottlerocket.js';
import { customUserData } from './custom.js';
import { windowsUserData } from './windows.js';

export type { ClusterBootstrap, UserDataInput } from './bootstrap-options.js';

/**
 * Base64 user data for one launch template, in the language of the class's AMI family: each
 * image family bootstraps differently and cannot read another's (facts §3, `userData`).
 */
export function userDataFor(input: UserDataInput): string {
  const { nodeClass } = input;
  switch (nodeClass.amiFamily) {
    case 'Custom':
      return customUserData(nodeClass.userData);
    case 'AL2023':
      return al2023UserData(bootstrapOptions(input));
    case 'AL2':
      return al2UserData(bootstrapOptions(input));
    case 'Bottlerocket':
      return bottlerocketUserData(
        bootstrapOptions(input),
        bottlerocketVersion(nodeClass.amiSelectorTerms ?? [], nodeClass.amis),
      );
    case 'Windows2019':
    case 'Windows2022':
    case 'Windows2025':
      return windowsUserData(bootstrapOptions(input));
  }
}
