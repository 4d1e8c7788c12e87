package main

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
)

// Reservation is the capacity reservation a reserved launch goes into.
type Reservation struct {
	ID            string `json:"id"`
	Type          string `json:"type"` // default | capacity-block
	Interruptible bool   `json:"interruptible"`
}

// withReservedOffering gives each instance type the reserved offering Karpenter's reserved-capacity
// offering resolver makes for a reservation in the zone: the requirements the launch template
// resolver groups reserved launches by (reservation id, type, interruptible).
func withReservedOffering(its []*cloudprovider.InstanceType, r *Reservation, zone string) {
	for _, it := range its {
		it.Offerings = append(it.Offerings, &cloudprovider.Offering{
			Requirements: scheduling.NewRequirements(
				scheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, karpv1.CapacityTypeReserved),
				scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, zone),
				scheduling.NewRequirement(cloudprovider.ReservationIDLabel, corev1.NodeSelectorOpIn, r.ID),
				scheduling.NewRequirement(v1.LabelCapacityReservationType, corev1.NodeSelectorOpIn, r.Type),
				scheduling.NewRequirement(v1.LabelCapacityReservationInterruptible, corev1.NodeSelectorOpIn, fmt.Sprintf("%t", r.Interruptible)),
			),
			Available:           true,
			ReservationCapacity: 1,
		})
	}
}
