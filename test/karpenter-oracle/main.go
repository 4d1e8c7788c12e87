// Command karpenter-oracle runs the real Karpenter's AMI resolution and launch-template building
// (github.com/aws/karpenter-provider-aws, the version go.mod pins) on cases read as a JSON array
// from stdin, and prints, as a JSON array, the CreateLaunchTemplate requests Karpenter would send
// for each. nodesmith's differential test compares them with its own.
//
// Everything runs in-process: AWS is replaced by Karpenter's own fake EC2 API (its DescribeImages
// filtering and its recorded DescribeInstanceTypes data) and by a deterministic SSM parameter store
// (every parameter exists; its value is an AMI id derived from the parameter's name). The SSM
// parameters Karpenter read and the images it saw are printed with each result, so the other side
// can be given exactly the same world.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"sort"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/patrickmn/go-cache"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	kubeletcel "github.com/aws/karpenter-provider-aws/pkg/cel"
	"github.com/aws/karpenter-provider-aws/pkg/fake"
	"github.com/aws/karpenter-provider-aws/pkg/operator/options"
	"github.com/aws/karpenter-provider-aws/pkg/providers/amifamily"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype/compatibility"
	"github.com/aws/karpenter-provider-aws/pkg/providers/placementgroup"
	"github.com/aws/karpenter-provider-aws/pkg/providers/launchtemplate"
	"github.com/aws/karpenter-provider-aws/pkg/providers/ssm"
	"github.com/aws/karpenter-provider-aws/pkg/utils"
)

// Cluster is what the controller would learn from its flags and the cluster.
type Cluster struct {
	Name              string `json:"name"`
	Endpoint          string `json:"endpoint"`
	CABundle          string `json:"caBundle"`
	ServiceCIDR       string `json:"serviceCidr"`
	KubeDNSIP         string `json:"kubeDnsIp"`
	Region            string `json:"region"`
	KubernetesVersion string `json:"kubernetesVersion"`
}

// Case is one launch: an EC2NodeClass as the user wrote it, the NodeClaim being launched and the
// instance types it may launch as.
type Case struct {
	Name            string             `json:"name"`
	NodeClass       json.RawMessage    `json:"nodeClass"`
	NodeClaim       *karpv1.NodeClaim  `json:"nodeClaim"`
	InstanceTypes   []string           `json:"instanceTypes"`
	CapacityType    string             `json:"capacityType"`
	Cluster         Cluster            `json:"cluster"`
	SecurityGroups  []v1.SecurityGroup `json:"securityGroups"`
	Subnets         []v1.Subnet        `json:"subnets"`
	InstanceProfile string             `json:"instanceProfile"`
	// Images beyond the ones SSM parameters point at, for id, name and tag selectors.
	Images []Image `json:"images"`
	// Set for a reserved launch (capacityType "reserved") into this reservation.
	Reservation *Reservation `json:"reservation,omitempty"`
	// The placement groups the account holds, for placementGroupSelector.
	PlacementGroups []PlacementGroup `json:"placementGroups,omitempty"`
}

type Image struct {
	ID           string            `json:"id"`
	Name         string            `json:"name"`
	Architecture string            `json:"architecture"` // x86_64 | arm64
	CreationDate string            `json:"creationDate"`
	Tags         map[string]string `json:"tags,omitempty"`
}

type LaunchTemplate struct {
	InstanceTypes []string                       `json:"instanceTypes"`
	ImageID       string                         `json:"imageId"`
	UserData      string                         `json:"userData"` // decoded
	Request       *ec2.CreateLaunchTemplateInput `json:"request"`
}

type Result struct {
	Name  string `json:"name"`
	Error string `json:"error,omitempty"`
	// Set when Karpenter's EC2NodeClass validation would keep the class from going Ready.
	Refused         string            `json:"refused,omitempty"`
	SSMParameters   map[string]string `json:"ssmParameters"`
	Images          []Image           `json:"images"`
	AMIs            []v1.AMI          `json:"amis"`
	MaxPods         map[string]int64  `json:"maxPods"`
	LaunchTemplates []LaunchTemplate  `json:"launchTemplates"`
}

func main() {
	instanceTypesOnly := flag.Bool("instance-types", false, "print the instance type names the recorded EC2 data holds and exit")
	parseOnly := flag.Bool("parse", false, "read a JSON array of decoded user data and print each parsed (MIME parts, NodeConfig objects, TOML settings)")
	nodeadm := flag.String("nodeadm", "", "with -parse: also run this nodeadm binary's config parser on each")
	flag.Parse()
	if *parseOnly {
		raw, err := io.ReadAll(os.Stdin)
		must(err)
		var texts []string
		must(json.Unmarshal(raw, &texts))
		type parsedWithVerdict struct {
			Parsed
			Nodeadm *NodeadmVerdict `json:"nodeadm,omitempty"`
		}
		out := make([]parsedWithVerdict, 0, len(texts))
		for _, t := range texts {
			p := parsedWithVerdict{Parsed: parseUserData(t)}
			if *nodeadm != "" && p.Format == "mime" {
				v := nodeadmCheck(*nodeadm, t)
				p.Nodeadm = &v
			}
			out = append(out, p)
		}
		must(json.NewEncoder(os.Stdout).Encode(out))
		return
	}
	if *instanceTypesOnly {
		out, err := fake.NewEC2API().DescribeInstanceTypes(context.Background(), &ec2.DescribeInstanceTypesInput{})
		must(err)
		names := []string{}
		for _, it := range out.InstanceTypes {
			names = append(names, string(it.InstanceType))
		}
		sort.Strings(names)
		must(json.NewEncoder(os.Stdout).Encode(names))
		return
	}
	raw, err := io.ReadAll(os.Stdin)
	must(err)
	var cases []Case
	must(json.Unmarshal(raw, &cases))
	results := make([]Result, 0, len(cases))
	for i := range cases {
		r, err := run(&cases[i])
		if err != nil {
			r.Error = err.Error()
		}
		results = append(results, r)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	must(enc.Encode(results))
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "karpenter-oracle:", err)
		os.Exit(1)
	}
}

// contextFor parses Karpenter's own flags, so every setting not given here has the default the
// controller would run with.
func contextFor(c Cluster) (context.Context, error) {
	fs := &coreoptions.FlagSet{FlagSet: flag.NewFlagSet("karpenter", flag.ContinueOnError)}
	core := &coreoptions.Options{}
	core.AddFlags(fs)
	aws := &options.Options{}
	aws.AddFlags(fs)
	args := []string{"--cluster-name=" + c.Name, "--cluster-endpoint=" + c.Endpoint, "--cluster-ca-bundle=" + c.CABundle}
	if err := core.Parse(fs, args...); err != nil {
		return nil, err
	}
	if err := aws.Parse(fs, args...); err != nil {
		return nil, err
	}
	ctx := coreoptions.ToContext(context.Background(), core)
	return options.ToContext(ctx, aws), nil
}

func run(c *Case) (Result, error) {
	r := Result{Name: c.Name, SSMParameters: map[string]string{}, MaxPods: map[string]int64{}, LaunchTemplates: []LaunchTemplate{}}
	ctx, err := contextFor(c.Cluster)
	if err != nil {
		return r, err
	}
	claim := c.NodeClaim
	if len(c.NodeClass) == 0 || claim == nil {
		return r, fmt.Errorf("a case needs nodeClass and nodeClaim")
	}
	nc, err := defaultedNodeClass(c.NodeClass)
	if err != nil {
		return r, fmt.Errorf("decoding the EC2NodeClass: %w", err)
	}
	if why := refusal(nc); why != "" {
		r.Refused = why
		return r, nil
	}
	nc.Status.SecurityGroups = c.SecurityGroups
	nc.Status.Subnets = c.Subnets
	nc.Status.InstanceProfile = c.InstanceProfile
	if nc.Spec.InstanceProfile != nil {
		nc.Status.InstanceProfile = *nc.Spec.InstanceProfile
	}

	// AMI discovery, as the EC2NodeClass status controller runs it.
	store := &parameterStore{values: r.SSMParameters}
	ec2api := fake.NewEC2API()
	amis := amifamily.NewDefaultProvider(clock.RealClock{}, fixedVersion(c.Cluster.KubernetesVersion),
		ssm.NewDefaultProvider(store, cache.New(cache.NoExpiration, 0)), ec2api, cache.New(cache.NoExpiration, 0))
	// The queries read the SSM parameters; the images they name exist from then on.
	if _, err := amis.DescribeImageQueries(ctx, nc); err != nil {
		return r, fmt.Errorf("resolving amiSelectorTerms: %w", err)
	}
	r.Images = append(append([]Image{}, c.Images...), store.images(c.Cluster.KubernetesVersion)...)
	ec2api.DescribeImagesOutput.Set(&ec2.DescribeImagesOutput{Images: toEC2Images(r.Images)})
	found, err := amis.List(ctx, nc)
	if err != nil {
		return r, fmt.Errorf("listing amis: %w", err)
	}
	nc.Status.AMIs = statusAMIs(found)
	r.AMIs = nc.Status.AMIs

	celEnv, err := kubeletcel.NewEnvironment()
	if err != nil {
		return r, err
	}
	pg, partition, err := placement(ctx, c.PlacementGroups, nc, claim)
	if err != nil {
		return r, fmt.Errorf("resolving placementGroupSelector: %w", err)
	}
	if nc.Spec.PlacementGroupSelector != nil && pg == nil {
		// Karpenter's placement group reconciler sets PlacementGroupReady=False (PlacementGroupNotFound): no launch.
		r.Refused = "placement group not found (PlacementGroupReady=False)"
		return r, nil
	}
	its, err := instanceTypes(ctx, c, nc, celEnv, pg)
	if err != nil {
		return r, err
	}
	for _, it := range its {
		r.MaxPods[it.Name] = it.Capacity.Pods().Value()
	}

	dnsIP := net.ParseIP(c.Cluster.KubeDNSIP)
	provider := &launchtemplate.DefaultProvider{ClusterEndpoint: c.Cluster.Endpoint, CABundle: &c.Cluster.CABundle, KubeDNSIP: dnsIP}
	provider.ClusterCIDR.Store(&c.Cluster.ServiceCIDR)
	capacityType := c.CapacityType
	if capacityType == "" {
		capacityType = karpv1.CapacityTypeOnDemand
	}
	if c.Reservation != nil {
		if capacityType != karpv1.CapacityTypeReserved || len(c.Subnets) == 0 {
			return r, fmt.Errorf("a case with a reservation launches reserved capacity into a subnet's zone")
		}
		withReservedOffering(its, c.Reservation, c.Subnets[0].Zone)
	}
	tags, err := utils.GetTags(nc, claim, c.Cluster.Name)
	if err != nil {
		return r, err
	}
	// As the instance provider calls EnsureAll: the NodeClaim's labels plus the capacity type.
	labels := map[string]string{}
	for k, v := range claim.Labels {
		labels[k] = v
	}
	labels[karpv1.CapacityTypeLabelKey] = capacityType
	opts, err := provider.CreateAMIOptions(ctx, nc, labels, tags)
	if err != nil {
		return r, err
	}
	pgID := ""
	if pg != nil {
		pgID = pg.ID
	}
	resolver := amifamily.NewDefaultResolver(c.Cluster.Region, nil, celEnv)
	resolved, err := resolver.Resolve(ctx, nc, claim, its, capacityType, string(ec2types.TenancyDefault), opts, pgID, partition)
	if err != nil {
		return r, fmt.Errorf("resolving launch templates: %w", err)
	}
	ipFamily := corev1.IPv4Protocol
	if dnsIP != nil && dnsIP.To4() == nil {
		ipFamily = corev1.IPv6Protocol
	}
	for _, lt := range resolved {
		script, err := lt.UserData.Script(ctx)
		if err != nil {
			return r, fmt.Errorf("rendering user data: %w", err)
		}
		decoded, err := decodeBase64(script)
		if err != nil {
			return r, err
		}
		names := []string{}
		for _, it := range lt.InstanceTypes {
			names = append(names, it.Name)
		}
		sort.Strings(names)
		r.LaunchTemplates = append(r.LaunchTemplates, LaunchTemplate{
			InstanceTypes: names,
			ImageID:       lt.AMIID,
			UserData:      decoded,
			Request:       launchtemplate.NewCreateLaunchTemplateInputBuilder(lt, ipFamily, script).Build(ctx),
		})
	}
	sort.Slice(r.LaunchTemplates, func(i, j int) bool {
		a, b := r.LaunchTemplates[i], r.LaunchTemplates[j]
		if a.ImageID != b.ImageID {
			return a.ImageID < b.ImageID
		}
		return a.InstanceTypes[0] < b.InstanceTypes[0]
	})
	return r, nil
}

// instanceTypes builds each named type as Karpenter's instance type provider does, from the EC2
// data Karpenter's own tests record. For a class with networkInterfaces or a placement group, the types
// Karpenter's compatibility checks make unlaunchable are left out (their offerings are unavailable, so the
// instance provider never sends them). Only for those: the recorded data predates EC2's
// nested-virtualization processor feature (m7i-flex.large lists none), so for the cpuOptions cases the
// check would drop a type EC2 launches; those cases pick the type instead.
func instanceTypes(ctx context.Context, c *Case, nc *v1.EC2NodeClass, celEnv *kubeletcel.CELEnvironment, pg *placementgroup.PlacementGroup) ([]*cloudprovider.InstanceType, error) {
	out, err := fake.NewEC2API().DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{})
	if err != nil {
		return nil, err
	}
	parsed, err := v1.ParseKubeletConfig(nc.Spec.Kubelet)
	if err != nil {
		return nil, fmt.Errorf("parsing kubelet configuration: %w", err)
	}
	zones := []string{}
	for _, s := range c.Subnets {
		zones = append(zones, s.Zone)
	}
	resolver := instancetype.NewDefaultResolver(c.Cluster.Region, celEnv)
	var its []*cloudprovider.InstanceType
	for _, name := range c.InstanceTypes {
		found := false
		for _, info := range out.InstanceTypes {
			if string(info.InstanceType) != name {
				continue
			}
			found = true
			checked := nc.Spec.NetworkInterfaces != nil || nc.Spec.PlacementGroupSelector != nil
			if checked && !compatibility.IsCompatibleWithNodeClass(info, nc, pg) {
				break
			}
			it, err := resolver.Resolve(ctx, info, zones, nc, parsed)
			if err != nil {
				return nil, err
			}
			its = append(its, it)
			break
		}
		if !found {
			return nil, fmt.Errorf("instance type %s is not in Karpenter's recorded EC2 data", name)
		}
	}
	return its, nil
}
