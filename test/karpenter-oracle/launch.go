package main

import (
	"context"
	"fmt"
	"net"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/patrickmn/go-cache"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	coretest "sigs.k8s.io/karpenter/pkg/test"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	awscache "github.com/aws/karpenter-provider-aws/pkg/cache"
	kubeletcel "github.com/aws/karpenter-provider-aws/pkg/cel"
	"github.com/aws/karpenter-provider-aws/pkg/fake"
	"github.com/aws/karpenter-provider-aws/pkg/providers/amifamily"
	"github.com/aws/karpenter-provider-aws/pkg/providers/arczonalshift"
	"github.com/aws/karpenter-provider-aws/pkg/providers/capacityreservation"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instance"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype"
	"github.com/aws/karpenter-provider-aws/pkg/providers/launchtemplate"
	"github.com/aws/karpenter-provider-aws/pkg/providers/placementgroup"
	"github.com/aws/karpenter-provider-aws/pkg/providers/pricing"
	"github.com/aws/karpenter-provider-aws/pkg/providers/securitygroup"
	"github.com/aws/karpenter-provider-aws/pkg/providers/subnet"
	"github.com/aws/karpenter-provider-aws/pkg/utils"
)

// providers are Karpenter's own AWS providers wired as its operator wires them (pkg/operator), over one fake EC2.
type providers struct {
	reservations  *capacityreservation.DefaultProvider
	instanceTypes *instancetype.DefaultProvider
	instances     *instance.DefaultProvider
}

func newCache() *cache.Cache { return cache.New(cache.NoExpiration, 0) }

func newProviders(ctx context.Context, c *Case, ec2api *fake.EC2API, celEnv *kubeletcel.CELEnvironment) *providers {
	clk := clock.RealClock{}
	unavailable := awscache.NewUnavailableOfferings()
	subnets := subnet.NewDefaultProvider(ec2api, newCache(), newCache())
	prices := pricing.NewDefaultProvider(&fake.PricingAPI{}, ec2api, c.Cluster.Region, false)
	reservations := capacityreservation.NewProvider(ec2api, clk, newCache(), newCache())
	groups := placementgroup.NewProvider(ec2api, newCache(), newCache())
	zonalShift := arczonalshift.NewProvider(fake.NewARCZonalShiftAPI(), clk, "")
	var types *instancetype.DefaultProvider
	// As the operator does: the AMI resolver reads ENI limits from the instance type provider's EC2 data.
	amis := amifamily.NewDefaultResolver(c.Cluster.Region, func(name string) (amifamily.ENILimits, bool) { return types.ENILimits(name) }, celEnv)
	types = instancetype.NewDefaultProvider(newCache(), newCache(), newCache(), ec2api, subnets, prices, reservations, groups, unavailable,
		instancetype.NewDefaultResolver(c.Cluster.Region, celEnv), zonalShift, nil, celEnv)
	dnsIP := net.ParseIP(c.Cluster.KubeDNSIP)
	caBundle := c.Cluster.CABundle
	templates := launchtemplate.NewDefaultProvider(ctx, newCache(), ec2api, fake.NewEKSAPI(), amis, securitygroup.NewDefaultProvider(ec2api, newCache()),
		subnets, groups, &caBundle, make(chan struct{}), dnsIP, c.Cluster.Endpoint)
	templates.ClusterCIDR.Store(&c.Cluster.ServiceCIDR)
	instances := instance.NewDefaultProvider(ctx, c.Cluster.Region, coretest.NewEventRecorder(), ec2api, unavailable, subnets, templates, reservations, groups,
		zonalShift, cache.New(cache.NoExpiration, cache.NoExpiration))
	return &providers{reservations: reservations, instanceTypes: types, instances: instances}
}

// nestedVirtualization is EC2's processor feature for nested virtualization. Karpenter's recorded EC2 data predates it:
// the type the corpus uses for cpuOptions.nestedVirtualization gets it, as EC2 lists it today.
var nestedVirtualizationTypes = map[string]bool{"m7i-flex.large": true}

// setWorld gives the fake EC2 the case's account: its instance types (offered in every zone of its subnets), placement
// groups and capacity reservation.
func setWorld(c *Case, ec2api *fake.EC2API) error {
	described, err := fake.NewEC2API().DescribeInstanceTypes(context.Background(), &ec2.DescribeInstanceTypesInput{})
	if err != nil {
		return err
	}
	offerings := &ec2.DescribeInstanceTypeOfferingsOutput{}
	for i, info := range described.InstanceTypes {
		if nestedVirtualizationTypes[string(info.InstanceType)] && info.ProcessorInfo != nil {
			processor := *info.ProcessorInfo
			processor.SupportedFeatures = append(append([]ec2types.SupportedAdditionalProcessorFeature{}, processor.SupportedFeatures...), ec2types.SupportedAdditionalProcessorFeatureNestedVirtualization)
			described.InstanceTypes[i].ProcessorInfo = &processor
		}
		for _, s := range c.Subnets {
			offerings.InstanceTypeOfferings = append(offerings.InstanceTypeOfferings, ec2types.InstanceTypeOffering{
				InstanceType: info.InstanceType, Location: aws.String(s.Zone), LocationType: ec2types.LocationTypeAvailabilityZone,
			})
		}
	}
	ec2api.DescribeInstanceTypesOutput.Set(described)
	ec2api.DescribeInstanceTypeOfferingsOutput.Set(offerings)
	ec2api.DescribePlacementGroupsOutput.Set(describedPlacementGroups(c.PlacementGroups))
	if c.Reservation != nil {
		if len(c.Subnets) == 0 || len(c.InstanceTypes) == 0 {
			return fmt.Errorf("a case with a reservation launches one instance type into a subnet's zone")
		}
		ec2api.DescribeCapacityReservationsOutput.Set(&ec2.DescribeCapacityReservationsOutput{
			CapacityReservations: []ec2types.CapacityReservation{describedReservation(c.Reservation, c.InstanceTypes[0], c.Subnets[0].Zone)},
		})
	}
	return nil
}

// claimFor is the NodeClaim Karpenter's scheduler would hand the cloud provider for the case: narrowed to the case's
// instance types and capacity type, as its scheduler narrows a NodeClaim to the types and capacity type it chose.
func claimFor(c *Case, capacityType string) *karpv1.NodeClaim {
	claim := c.NodeClaim.DeepCopy()
	kept := []karpv1.NodeSelectorRequirementWithMinValues{}
	for _, r := range claim.Spec.Requirements {
		if r.Key != corev1.LabelInstanceTypeStable && r.Key != karpv1.CapacityTypeLabelKey {
			kept = append(kept, r)
		}
	}
	claim.Spec.Requirements = append(kept,
		karpv1.NodeSelectorRequirementWithMinValues{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: c.InstanceTypes},
		karpv1.NodeSelectorRequirementWithMinValues{Key: karpv1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{capacityType}},
	)
	return claim
}

// launch runs Karpenter's CloudProvider.Create from its instance type listing on: the instance types of the class
// (with their offerings), then the instance provider's Create, which filters them, ensures the launch templates and
// sends CreateFleet. The fake EC2 records both requests.
func launch(ctx context.Context, c *Case, nc *v1.EC2NodeClass, ec2api *fake.EC2API, celEnv *kubeletcel.CELEnvironment, r *Result) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := setWorld(c, ec2api); err != nil {
		return err
	}
	p := newProviders(ctx, c, ec2api, celEnv)
	reserved, err := statusReservations(ctx, nc, p.reservations)
	if err != nil {
		return fmt.Errorf("listing capacity reservations: %w", err)
	}
	nc.Status.CapacityReservations = reserved
	if err := p.instanceTypes.UpdateInstanceTypes(ctx); err != nil {
		return err
	}
	if err := p.instanceTypes.UpdateInstanceTypeOfferings(ctx); err != nil {
		return err
	}
	its, err := p.instanceTypes.List(ctx, nc)
	if err != nil {
		return fmt.Errorf("listing instance types: %w", err)
	}
	for _, it := range its {
		for _, name := range c.InstanceTypes {
			if it.Name == name {
				r.MaxPods[name] = it.Capacity.Pods().Value()
			}
		}
	}
	claim := claimFor(c, c.CapacityType)
	tags, err := utils.GetTags(nc, claim, c.Cluster.Name)
	if err != nil {
		return err
	}
	if _, err := p.instances.Create(ctx, nc, claim, tags, its); err != nil {
		r.Fleet = lastFleet(ec2api)
		return fmt.Errorf("creating instance: %w", err)
	}
	r.Fleet = lastFleet(ec2api)
	return templatesSent(ec2api, r)
}

func lastFleet(ec2api *fake.EC2API) *ec2.CreateFleetInput {
	if ec2api.CreateFleetBehavior.CalledWithInput.Len() == 0 {
		return nil
	}
	return ec2api.CreateFleetBehavior.CalledWithInput.Pop()
}

// templatesSent are the CreateLaunchTemplate requests Karpenter sent, each with the instance types the fleet request
// launches it for.
func templatesSent(ec2api *fake.EC2API, r *Result) error {
	typesByName := map[string][]string{}
	if r.Fleet != nil {
		for _, config := range r.Fleet.LaunchTemplateConfigs {
			name := aws.ToString(config.LaunchTemplateSpecification.LaunchTemplateName)
			for _, o := range config.Overrides {
				typesByName[name] = append(typesByName[name], string(o.InstanceType))
			}
		}
	}
	for ec2api.CreateLaunchTemplateBehavior.CalledWithInput.Len() > 0 {
		input := ec2api.CreateLaunchTemplateBehavior.CalledWithInput.Pop()
		script := aws.ToString(input.LaunchTemplateData.UserData)
		decoded, err := decodeBase64(script)
		if err != nil {
			return err
		}
		names := append([]string{}, typesByName[aws.ToString(input.LaunchTemplateName)]...)
		sort.Strings(names)
		r.LaunchTemplates = append(r.LaunchTemplates, LaunchTemplate{InstanceTypes: names, ImageID: aws.ToString(input.LaunchTemplateData.ImageId), UserData: decoded, Request: input})
	}
	sort.Slice(r.LaunchTemplates, func(i, j int) bool {
		a, b := r.LaunchTemplates[i], r.LaunchTemplates[j]
		if a.ImageID != b.ImageID {
			return a.ImageID < b.ImageID
		}
		return firstOf(a.InstanceTypes) < firstOf(b.InstanceTypes)
	})
	return nil
}

func firstOf(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// statusReservations is what the EC2NodeClass status controller writes for the reservations the class selects, read
// through Karpenter's capacity reservation provider (which also learns their available counts from it).
func statusReservations(ctx context.Context, nc *v1.EC2NodeClass, reservations *capacityreservation.DefaultProvider) ([]v1.CapacityReservation, error) {
	if len(nc.Spec.CapacityReservationSelectorTerms) == 0 {
		return nil, nil
	}
	clk := clock.RealClock{}
	found, err := reservations.List(ctx, nc.Spec.CapacityReservationSelectorTerms...)
	if err != nil {
		return nil, err
	}
	out := []v1.CapacityReservation{}
	for _, cr := range found {
		status, err := v1.CapacityReservationFromEC2(clk, cr)
		if err != nil {
			return nil, err
		}
		out = append(out, status)
	}
	return out, nil
}
