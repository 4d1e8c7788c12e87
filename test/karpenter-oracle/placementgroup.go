package main

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/patrickmn/go-cache"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/fake"
	"github.com/aws/karpenter-provider-aws/pkg/providers/placementgroup"
)

// PlacementGroup is one group that exists in the case's account (EC2's DescribePlacementGroups item).
type PlacementGroup struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	Strategy       string `json:"strategy"` // cluster | partition | spread
	PartitionCount int32  `json:"partitionCount,omitempty"`
}

// describedPlacementGroups is what DescribePlacementGroups returns for the account: every group, available.
func describedPlacementGroups(groups []PlacementGroup) *ec2.DescribePlacementGroupsOutput {
	out := &ec2.DescribePlacementGroupsOutput{}
	for _, g := range groups {
		id, name := g.ID, g.Name
		count := g.PartitionCount
		out.PlacementGroups = append(out.PlacementGroups, ec2types.PlacementGroup{
			GroupId: &id, GroupName: &name, Strategy: ec2types.PlacementStrategy(g.Strategy),
			PartitionCount: &count, State: ec2types.PlacementGroupStateAvailable,
		})
	}
	return out
}

// placementGroupFound resolves the class's placementGroupSelector through Karpenter's own placement group provider
// against its fake EC2 (which filters DescribePlacementGroups by id, name and state as EC2 does), as its placement
// group reconciler does before it sets PlacementGroupReady. A class without a selector needs none.
func placementGroupFound(ctx context.Context, groups []PlacementGroup, nc *v1.EC2NodeClass) (bool, error) {
	if nc.Spec.PlacementGroupSelector == nil {
		return true, nil
	}
	ec2api := fake.NewEC2API()
	ec2api.DescribePlacementGroupsOutput.Set(describedPlacementGroups(groups))
	pg, err := placementgroup.NewProvider(ec2api, cache.New(cache.NoExpiration, 0), cache.New(cache.NoExpiration, 0)).Get(ctx, nc)
	return pg != nil, err
}
