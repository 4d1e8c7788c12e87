package main

import (
	"context"
	"sort"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/patrickmn/go-cache"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/scheduling"

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

// placement resolves the class's placementGroupSelector through Karpenter's own placement group provider
// against its fake EC2 (which filters DescribePlacementGroups by id, name and state as EC2 does), and the
// partition the launch template names for the NodeClaim. The partition is Karpenter's EnsureAll rule: for a
// partition group, the NodeClaim's placement-group-partition requirement values sorted as strings, the first
// parsed as a number; none without such a requirement.
func placement(ctx context.Context, groups []PlacementGroup, nc *v1.EC2NodeClass, claim *karpv1.NodeClaim) (*placementgroup.PlacementGroup, int32, error) {
	if nc.Spec.PlacementGroupSelector == nil {
		return nil, 0, nil
	}
	ec2api := fake.NewEC2API()
	out := &ec2.DescribePlacementGroupsOutput{}
	for _, g := range groups {
		id, name := g.ID, g.Name
		count := g.PartitionCount
		out.PlacementGroups = append(out.PlacementGroups, ec2types.PlacementGroup{
			GroupId: &id, GroupName: &name, Strategy: ec2types.PlacementStrategy(g.Strategy),
			PartitionCount: &count, State: ec2types.PlacementGroupStateAvailable,
		})
	}
	ec2api.DescribePlacementGroupsOutput.Set(out)
	pg, err := placementgroup.NewProvider(ec2api, cache.New(cache.NoExpiration, 0), cache.New(cache.NoExpiration, 0)).Get(ctx, nc)
	if err != nil || pg == nil || pg.Strategy != placementgroup.StrategyPartition {
		return pg, 0, err
	}
	reqs := scheduling.NewNodeSelectorRequirementsWithMinValues(claim.Spec.Requirements...)
	if r := reqs.Get(v1.LabelPlacementGroupPartition); r != nil {
		if values := r.Values(); len(values) > 0 {
			sort.Strings(values)
			if parsed, err := strconv.ParseInt(values[0], 10, 32); err == nil {
				return pg, int32(parsed), nil
			}
		}
	}
	return pg, 0, nil
}
