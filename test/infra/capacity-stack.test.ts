/**
 * Separate budgets for paid, keyed and anonymous traffic in the synthesized stacks: the stage
 * throttle per stage (prod holds 1,000 paid calls/s in each lane: 4,000 requests/s), the edge's
 * per-IP rule that counts only requests without payment or key, the cache that follows the
 * origin's cache-control, and the load alarms (429s, 4xx, Lambda and DynamoDB throttles, money).
 */
import { describe, expect, it } from 'vitest';
import { PAY_TO, refersTo, synthService, logicalId } from './synth';

const PROD = {
  stage: 'prod',
  payTo: PAY_TO,
  facilitatorUrl: 'https://facilitator.example.com/x402',
  alarmEmail: 'ops@example.com',
  rpcUrl: 'https://base.rpc.example.com',
};

describe('capacity in the synthesized stacks', () => {
  const prod = synthService(PROD);
  const api = prod.templates.api;

  it('gives prod a stage throttle that holds 1,000 paid calls/s per lane (2 requests per exact call, 1 per batch or Pro call), dev and staging less', () => {
    const throttleOf = (t: typeof api) => (Object.values(t.findResources('AWS::ApiGatewayV2::Stage'))[0] as any).Properties.DefaultRouteSettings;
    const { ThrottlingRateLimit, ThrottlingBurstLimit } = throttleOf(api);
    expect(ThrottlingRateLimit).toBeGreaterThanOrEqual(2 * 1_000 + 1_000 + 1_000);
    // the account-level burst quota of API Gateway (5,000 per region) bounds any stage's burst
    expect(ThrottlingBurstLimit).toBeLessThanOrEqual(5_000);
    expect(throttleOf(synthService().templates.api).ThrottlingRateLimit).toBeLessThan(ThrottlingRateLimit);
  });

  it('puts prod behind CloudFront with a WAF rule that limits only anonymous requests per IP, in us-east-1 only', () => {
    const [acl] = Object.values(api.findResources('AWS::WAFv2::WebACL')) as any[];
    expect(acl.Properties.Scope).toBe('CLOUDFRONT');
    expect(acl.Properties.DefaultAction).toEqual({ Allow: {} });
    const [rule] = acl.Properties.Rules;
    expect(rule.Statement.RateBasedStatement).toMatchObject({ AggregateKeyType: 'IP', EvaluationWindowSec: 300, Limit: 1_500 });
    const proofs = rule.Statement.RateBasedStatement.ScopeDownStatement.NotStatement.Statement.OrStatement.Statements.map(
      (st: any) => st.SizeConstraintStatement.FieldToMatch.SingleHeader.Name,
    );
    expect(proofs.sort()).toEqual(['authorization', 'payment-signature', 'x-payment']);
    expect(rule.Action.Block.CustomResponse).toMatchObject({ ResponseCode: 429, ResponseHeaders: [{ Name: 'retry-after', Value: '60' }] });
    expect(JSON.parse(acl.Properties.CustomResponseBodies.RateLimited.Content).error.code).toBe('RATE_LIMITED');
    const [dist] = Object.values(api.findResources('AWS::CloudFront::Distribution')) as any[];
    expect(refersTo(dist.Properties.DistributionConfig.WebACLId, prod.api.getLogicalId(prod.api.edge!.webAcl))).toBe(true);
    expect(dist.Properties.DistributionConfig.DefaultCacheBehavior.AllowedMethods).toContain('POST');
    const [policy] = Object.values(api.findResources('AWS::CloudFront::CachePolicy')) as any[];
    // default TTL 0: only what the origin marks cacheable (free documents, public max-age=60) is cached
    expect(policy.Properties.CachePolicyConfig).toMatchObject({ DefaultTTL: 0, MinTTL: 0 });
    expect(policy.Properties.CachePolicyConfig.ParametersInCacheKeyAndForwardedToOrigin.HeadersConfig.Headers).toEqual(
      expect.arrayContaining(['authorization', 'payment-signature', 'x-payment']),
    );
    const rules = api.toJSON().Rules as Record<string, any>;
    expect(JSON.stringify(Object.values(rules))).toContain('us-east-1');
    // staging and dev have no edge unless asked
    expect(synthService({ stage: 'staging', payTo: PAY_TO }).templates.api.findResources('AWS::WAFv2::WebACL')).toEqual({});
    expect(synthService({ ...PROD, edge: '0' }).templates.api.findResources('AWS::CloudFront::Distribution')).toEqual({});
  });

  it('puts a custom domain on the distribution when the edge is there (no way around WAF by name)', () => {
    const s = synthService({ ...PROD, domainName: 'api.example.com', certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/0b7c2f4e-1111' });
    const [dist] = Object.values(s.templates.api.findResources('AWS::CloudFront::Distribution')) as any[];
    expect(dist.Properties.DistributionConfig.Aliases).toEqual(['api.example.com']);
    expect(dist.Properties.DistributionConfig.ViewerCertificate).toMatchObject({ MinimumProtocolVersion: 'TLSv1.2_2021', SslSupportMethod: 'sni-only' });
    expect(s.templates.api.findResources('AWS::ApiGatewayV2::ApiMapping')).toEqual({});
    expect(s.templates.api.toJSON().Outputs.CustomDomainTarget.Value).toEqual({ 'Fn::GetAtt': [expect.any(String), 'DomainName'] });
  });

  it('alarms on 429s counted from the access log, on 4xx other than the 402 handshake, on throttles and on an hour of traffic without money', () => {
    const filters = Object.values(api.findResources('AWS::Logs::MetricFilter')) as any[];
    const byName = Object.fromEntries(filters.map((f) => [f.Properties.MetricTransformations[0].MetricName, f.Properties.FilterPattern]));
    expect(byName.Api429).toBe('{ $.status = "429" }');
    expect(byName.Api4xxNot402).toBe('{ ($.status = "4*") && ($.status != "402") && ($.status != "429") }');
    for (const f of filters) expect(refersTo(f.Properties.LogGroupName, logicalId(prod.api, prod.api.accessLogs))).toBe(true);
    const alarms = Object.entries(api.findResources('AWS::CloudWatch::Alarm')) as Array<[string, any]>;
    const named = (prefix: string) => alarms.filter(([id]) => id.startsWith(prefix)).map(([, a]) => a.Properties);
    expect(named('Api429Alarm')[0]).toMatchObject({ MetricName: 'Api429', Namespace: 'CommodityData/prod', Threshold: 10 });
    const throttled = named('LambdaThrottlesAlarm').flatMap((a) => a.Metrics.filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat.Metric));
    // every function of the API stack is watched for throttles
    const fnIds = Object.keys(api.findResources('AWS::Lambda::Function'));
    expect(throttled.map((m: any) => m.MetricName)).toEqual(fnIds.map(() => 'Throttles'));
    for (const id of fnIds)
      expect(
        throttled.some((m: any) => refersTo(m.Dimensions, id)),
        id,
      ).toBe(true);
    const dynamo = named('DynamoThrottlesAlarm').flatMap((a) => a.Metrics.filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat.Metric));
    expect(
      dynamo
        .filter((m: any) => m.Dimensions.some((d: any) => d.Name === 'GlobalSecondaryIndexName'))
        .map((m: any) => m.Dimensions.find((d: any) => d.Name === 'GlobalSecondaryIndexName').Value),
    ).toEqual(['gsi1', 'gsi2']);
    const money = named('RevenueZeroAlarm')[0];
    expect(money.Metrics.find((m: any) => m.Expression).Expression).toMatch(/requests >= 1000 AND FILL\(revenue, 0\) \+ FILL\(credits, 0\) == 0/);
    expect(
      money.Metrics.filter((m: any) => m.MetricStat)
        .map((m: any) => m.MetricStat.Metric.MetricName)
        .sort(),
    ).toEqual(['Count', 'CreditsDebited', 'RevenueUsdcAtomic']);
  });
});
