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
	"os"
	"sort"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/patrickmn/go-cache"
	"k8s.io/utils/clock"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	kubeletcel "github.com/aws/karpenter-provider-aws/pkg/cel"
	"github.com/aws/karpenter-provider-aws/pkg/fake"
	"github.com/aws/karpenter-provider-aws/pkg/operator/options"
	"github.com/aws/karpenter-provider-aws/pkg/providers/amifamily"
	"github.com/aws/karpenter-provider-aws/pkg/providers/ssm"
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
	// The CreateFleet request Karpenter's instance provider sent (also when the launch then failed).
	Fleet *ec2.CreateFleetInput `json:"fleet,omitempty"`
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
	groupFound, err := placementGroupFound(ctx, c.PlacementGroups, nc)
	if err != nil {
		return r, fmt.Errorf("resolving placementGroupSelector: %w", err)
	}
	if !groupFound {
		// Karpenter's placement group reconciler sets PlacementGroupReady=False (PlacementGroupNotFound): no launch.
		r.Refused = "placement group not found (PlacementGroupReady=False)"
		return r, nil
	}
	if c.CapacityType == "" {
		c.CapacityType = karpv1.CapacityTypeOnDemand
	}
	if (c.Reservation != nil) != (c.CapacityType == karpv1.CapacityTypeReserved) {
		return r, fmt.Errorf("a reserved case names its reservation, and only a reserved one")
	}
	return r, launch(ctx, c, nc, ec2api, celEnv, &r)
}
