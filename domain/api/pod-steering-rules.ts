import { steeringProblems } from '../pod-steering.js';
import { fieldPath, problem, type Problem } from './problem.js';

/** Problems with the product's steering annotations on a pod; other annotations are not ours to judge. */
export function checkPodSteeringAnnotations(
  annotations: Readonly<Record<string, string>> | undefined,
  base = 'metadata.annotations',
): Problem[] {
  return steeringProblems(annotations).map(({ key, value, why }) =>
    problem(fieldPath(base, key), 'pod-annotation', value, `${key} ${why}`),
  );
}
