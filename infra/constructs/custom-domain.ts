/**
 * The API under the operator's own host name (-c domainName -c certificateArn): an API Gateway
 * regional domain with the ACM certificate, mapped to the API's `$default` stage. DNS stays with
 * the operator: a CNAME (or a Route 53 alias) from the domain to the `CustomDomainTarget` output.
 */
import { CfnOutput } from 'aws-cdk-lib';
import { ApiMapping, DomainName, type IHttpApi, type IHttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { Construct } from 'constructs';

interface CustomDomainProps {
  name: string;
  /** An ACM certificate for the name, in the stack's region (a regional endpoint). */
  certificateArn: string;
  api: IHttpApi;
  stage: IHttpStage;
}

class CustomDomain extends Construct {
  readonly domain: DomainName;

  constructor(scope: Construct, id: string, props: CustomDomainProps) {
    super(scope, id);
    this.domain = new DomainName(this, 'Domain', {
      domainName: props.name,
      certificate: Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn),
    });
    new ApiMapping(this, 'Mapping', { api: props.api, domainName: this.domain, stage: props.stage });
    new CfnOutput(scope, 'CustomDomainTarget', {
      value: this.domain.regionalDomainName,
      description: `DNS: ${props.name} CNAME (or Route 53 alias A/AAAA) to this name`,
    });
    new CfnOutput(scope, 'CustomDomainHostedZoneId', {
      value: this.domain.regionalHostedZoneId,
      description: 'hosted zone id of the target, for a Route 53 alias record',
    });
  }
}

export { CustomDomain };
