/**
 * The edge in front of the HTTP API: a CloudFront distribution and an AWS WAF web ACL (an HTTP API
 * cannot take a web ACL itself). What it adds:
 * - anonymous requests (no `Authorization`, `PAYMENT-SIGNATURE` or `X-PAYMENT` header) get their own
 *   budget per client IP (a rate-based rule answering 429 RATE_LIMITED), so a scraper runs out of
 *   its budget long before it can use up the stage throttle that paying calls share;
 * - free documents (answers with `cache-control: public, max-age=60`) are served from the cache.
 *   402 challenges cannot be: CloudFront caches no 402 (only 400, 403, 404, 405, 414, 416 and 5xx
 *   among errors), and they say `no-store` anyway; the per-IP budget is what bounds them.
 * A CLOUDFRONT-scope web ACL exists only in us-east-1: the template refuses another region.
 */
import { Aws, CfnOutput, CfnRule, Duration, Fn, Validations } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CacheHeaderBehavior,
  CachePolicy,
  CacheQueryStringBehavior,
  Distribution,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

/** Headers that make a request paid or keyed: requests with none of them are anonymous. */
const PROOF_HEADERS = ['authorization', 'payment-signature', 'x-payment'] as const;
/** Headers that change a free answer (a forced challenge, the x402 version of its body), in the cache key with the proofs. */
const VARY_HEADERS = ['x-force-402', 'x402-version', 'accept'] as const;
const ANONYMOUS_RULE = 'AnonymousPerIp';

interface EdgeProps {
  api: IHttpApi;
  /** Requests without payment or key one IP may make in 5 minutes. */
  anonymousPerIpPer5Min: number;
  /** The operator's host name on the distribution (its certificate is then in us-east-1, as the edge's region). */
  domain?: { name: string; certificateArn: string };
  metricPrefix: string;
}

class Edge extends Construct {
  readonly distribution: Distribution;
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: EdgeProps) {
    super(scope, id);
    new CfnRule(this, 'RegionRule', {
      assertions: [
        {
          assert: Fn.conditionEquals(Aws.REGION, 'us-east-1'),
          assertDescription:
            'The edge (CloudFront with an AWS WAF web ACL of scope CLOUDFRONT) can be deployed only in us-east-1: deploy the stage there, or synth with -c edge=0',
        },
      ],
    });
    const visibility = (name: string) => ({ cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true, metricName: `${props.metricPrefix}-${name}` });
    const hasHeader = (name: string) => ({
      sizeConstraintStatement: {
        fieldToMatch: { singleHeader: { Name: name } },
        comparisonOperator: 'GT',
        size: 0,
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    });
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('edge'),
      customResponseBodies: {
        RateLimited: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({
            error: {
              code: 'RATE_LIMITED',
              message:
                'Too many requests without payment or key from this address; retry later, or pay (x402) or use a Pro key, which this limit does not count',
              retryable: true,
            },
          }),
        },
      },
      rules: [
        {
          name: ANONYMOUS_RULE,
          priority: 0,
          action: {
            block: { customResponse: { responseCode: 429, customResponseBodyKey: 'RateLimited', responseHeaders: [{ name: 'retry-after', value: '60' }] } },
          },
          statement: {
            rateBasedStatement: {
              limit: props.anonymousPerIpPer5Min,
              evaluationWindowSec: 300,
              aggregateKeyType: 'IP',
              scopeDownStatement: { notStatement: { statement: { orStatement: { statements: PROOF_HEADERS.map(hasHeader) } } } },
            },
          },
          visibilityConfig: visibility(ANONYMOUS_RULE),
        },
      ],
    });

    const cachePolicy = new CachePolicy(this, 'CachePolicy', {
      comment: 'free documents by their own cache-control; paid, keyed and 402 answers say no-store',
      defaultTtl: Duration.seconds(0),
      minTtl: Duration.seconds(0),
      maxTtl: Duration.minutes(5),
      queryStringBehavior: CacheQueryStringBehavior.all(),
      headerBehavior: CacheHeaderBehavior.allowList(...PROOF_HEADERS, ...VARY_HEADERS),
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    });
    const certificate = props.domain ? Certificate.fromCertificateArn(this, 'Certificate', props.domain.certificateArn) : undefined;
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `${props.metricPrefix}: the API behind WAF`,
      defaultBehavior: {
        origin: new HttpOrigin(Fn.select(2, Fn.split('/', props.api.apiEndpoint)), { protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY }),
        allowedMethods: AllowedMethods.ALLOW_ALL,
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        cachePolicy,
        // API Gateway needs its own Host; every other header, the query and the body reach it.
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      },
      webAclId: this.webAcl.attrArn,
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      // A minimum TLS version applies to a custom certificate only (the *.cloudfront.net one is fixed).
      ...(props.domain && certificate ? { domainNames: [props.domain.name], certificate, minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021 } : {}),
    });
    Validations.of(this.distribution).acknowledge(
      { id: 'AwsSolutions-CFR1', reason: 'a public API for buyers anywhere: no geo restriction' },
      { id: 'AwsSolutions-CFR3', reason: 'the API stage keeps an access log of every request that passes the edge; WAF samples the blocked ones' },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'viewers get TLS 1.2 minimum with a custom domain; the default *.cloudfront.net certificate cannot set a minimum (CloudFront fixes TLSv1 there)',
      },
    );
    new CfnOutput(scope, 'EdgeUrl', { value: `https://${this.distribution.distributionDomainName}`, description: 'the API through CloudFront and WAF' });
    if (props.domain) {
      new CfnOutput(scope, 'CustomDomainTarget', {
        value: this.distribution.distributionDomainName,
        description: `DNS: ${props.domain.name} CNAME (or Route 53 alias A/AAAA) to this name`,
      });
      // CloudFront's fixed hosted zone id for alias records.
      new CfnOutput(scope, 'CustomDomainHostedZoneId', { value: 'Z2FDTNDATAQYW2', description: 'hosted zone id of the target, for a Route 53 alias record' });
    }
  }
}

export { Edge };
