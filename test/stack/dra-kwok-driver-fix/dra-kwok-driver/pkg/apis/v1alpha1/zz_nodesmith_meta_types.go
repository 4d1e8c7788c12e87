package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Registers meta/v1's types (ListOptions, WatchEvent …) under this group version, as every kubebuilder API package
// does and the driver's own groupversion_info.go at sigs.k8s.io/karpenter v1.15.0 does not: without them the
// driver's cached client cannot list its DRAConfigs ("v1.ListOptions is not suitable for converting to
// test.karpenter.sh/v1alpha1") and publishes nothing. Laid over a copy of the module by nodesmith's stack build
// (test/stack/build-dra-kwok-driver.sh); no file of the module is changed.
func init() {
	SchemeBuilder.Register(func(s *runtime.Scheme) error {
		metav1.AddToGroupVersion(s, GroupVersion)
		return nil
	})
}
