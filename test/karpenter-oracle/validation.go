package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/providers/amifamily"
)

// refusal says why Karpenter's EC2NodeClass validation controller would keep the class NotReady
// (so nothing launches), from the kubelet checks it runs: the kubelet schema and semantics, and
// the fields an AMI family would drop. The second is unexported in Karpenter
// (pkg/controllers/nodeclass/validation.go, validateKubeletFieldsSupported); this follows it
// using the exported pieces it is made of.
func refusal(nc *v1.EC2NodeClass) string {
	if errs := v1.ValidateKubeletConfig(nc.Spec.Kubelet); len(errs) > 0 {
		return errors.Join(errs...).Error()
	}
	parsed, err := v1.ParseKubeletConfig(nc.Spec.Kubelet)
	if err != nil {
		return err.Error()
	}
	if len(nc.Spec.Kubelet) == 0 || nc.AMIFamily() == v1.AMIFamilyCustom {
		return ""
	}
	flags := amifamily.GetAMIFamily(nc.AMIFamily(), &amifamily.Options{}).FeatureFlags()
	if flags.SupportsArbitraryKubeletConfig {
		return ""
	}
	var messages []string
	unsupported := map[string]bool{}
	for _, f := range v1.UnmanagedKubeletFields(nc.Spec.Kubelet) {
		unsupported[f] = true
	}
	if parsed != nil && parsed.PodsPerCore != nil && !flags.PodsPerCoreEnabled {
		unsupported["podsPerCore"] = true
	}
	if len(unsupported) > 0 {
		names := make([]string, 0, len(unsupported))
		for f := range unsupported {
			names = append(names, f)
		}
		sort.Strings(names)
		messages = append(messages, fmt.Sprintf("spec.kubelet has fields not applied by the %s AMI family: %s", nc.AMIFamily(), strings.Join(names, ", ")))
	}
	if parsed != nil && len(parsed.ClusterDNS) > 1 {
		messages = append(messages, fmt.Sprintf("spec.kubelet.clusterDNS: the %s AMI family accepts one entry, %d were set", nc.AMIFamily(), len(parsed.ClusterDNS)))
	}
	return strings.Join(messages, "; ")
}
