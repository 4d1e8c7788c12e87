package main

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// Reservation is the capacity reservation a reserved launch goes into.
type Reservation struct {
	ID            string `json:"id"`
	Type          string `json:"type"` // default | capacity-block
	Interruptible bool   `json:"interruptible"`
}

// reservationOwner is the account every reservation of the corpus belongs to.
const reservationOwner = "012345678901"

// describedReservation is the reservation as EC2's DescribeCapacityReservations returns it: active, targeted, with room
// for one instance of the type in the zone. Karpenter's capacity reservation provider reads it and its status
// controller writes it into the EC2NodeClass; the offering resolver makes the reserved offering from that.
func describedReservation(r *Reservation, instanceType, zone string) ec2types.CapacityReservation {
	return ec2types.CapacityReservation{
		CapacityReservationId:  aws.String(r.ID),
		InstanceType:           aws.String(instanceType),
		AvailabilityZone:       aws.String(zone),
		AvailableInstanceCount: aws.Int32(1),
		TotalInstanceCount:     aws.Int32(1),
		InstanceMatchCriteria:  ec2types.InstanceMatchCriteriaTargeted,
		OwnerId:                aws.String(reservationOwner),
		ReservationType:        ec2types.CapacityReservationType(r.Type),
		Interruptible:          aws.Bool(r.Interruptible),
		State:                  ec2types.CapacityReservationStateActive,
	}
}
