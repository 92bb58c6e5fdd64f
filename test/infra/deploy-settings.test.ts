/**
 * Deploy settings as the synthesized stacks carry them: a custom domain mapped to the API, the pager
 * held on a first deploy, and an unknown context key stopping the synth of the real App.
 */
import { describe, expect, it } from 'vitest';
import { PAY_TO, synthService } from './synth';

const PROD = {
  stage: 'prod',
  payTo: PAY_TO,
  facilitatorUrl: 'https://facilitator.example.com/x402',
  alarmEmail: 'ops@example.com',
  rpcUrl: 'https://base.rpc.example.com',
};
const CERT = 'arn:aws:acm:eu-west-1:123456789012:certificate/0b7c2f4e-1111-2222-3333-444455556666';

describe('deploy settings in the synthesized stacks', () => {
  it('maps a custom domain to the API stage with its certificate and outputs the DNS target (without the edge; with it, see capacity-stack.test.ts)', () => {
    const s = synthService({ ...PROD, edge: '0', domainName: 'api.example.com', certificateArn: CERT });
    const api = s.templates.api.toJSON();
    const domains = Object.entries(s.templates.api.findResources('AWS::ApiGatewayV2::DomainName'));
    expect(domains).toHaveLength(1);
    const [domainId, domain] = domains[0]! as [string, any];
    expect(domain.Properties).toMatchObject({ DomainName: 'api.example.com', DomainNameConfigurations: [{ CertificateArn: CERT, EndpointType: 'REGIONAL' }] });
    const mappings = Object.values(s.templates.api.findResources('AWS::ApiGatewayV2::ApiMapping')) as any[];
    expect(mappings).toHaveLength(1);
    expect(mappings[0].Properties.DomainName).toEqual({ Ref: domainId });
    expect(mappings[0].Properties.Stage).toBe('$default');
    expect(mappings[0].DependsOn ?? []).toEqual(expect.arrayContaining([expect.stringMatching(/^DefaultStage/)]));
    expect(api.Outputs.CustomDomainTarget.Value).toEqual({ 'Fn::GetAtt': [domainId, 'RegionalDomainName'] });
    // every URL the service writes is on the domain
    for (const fn of Object.values(s.templates.api.findResources('AWS::Lambda::Function')) as any[]) {
      expect(fn.Properties.Environment.Variables.PUBLIC_BASE_URL).toBe('https://api.example.com');
    }
    expect(synthService({ ...PROD, edge: '0' }).templates.api.findResources('AWS::ApiGatewayV2::DomainName')).toEqual({});
  });

  it('holds every alarm of every stack silent with quietAlarms=1, and lets them notify without it', () => {
    const alarmsOf = (ctx: Record<string, string>) => {
      const s = synthService(ctx);
      return Object.values(s.templates).flatMap((t) => Object.values(t.findResources('AWS::CloudWatch::Alarm')) as any[]);
    };
    const quiet = alarmsOf({ ...PROD, quietAlarms: '1' });
    expect(quiet.length).toBeGreaterThan(10);
    for (const a of quiet) expect(a.Properties.ActionsEnabled).toBe(false);
    const loud = alarmsOf(PROD);
    expect(loud).toHaveLength(quiet.length);
    for (const a of loud) {
      expect(a.Properties.ActionsEnabled ?? true).toBe(true);
      expect(a.Properties.AlarmActions).toHaveLength(1);
    }
  });

  it('stops the synth of the App on an unknown context key', () => {
    expect(() => synthService({ ...PROD, alarmEmial: 'ops@example.com' })).toThrow(/alarmEmial: not a setting of this app/);
  });
});
