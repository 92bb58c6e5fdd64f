import { describe, expect, it } from 'vitest';
import { buildCalendar } from '../../shared/families/discovery/calendar';
import { CalendarBody } from '../../shared/schemas/discovery';
import { SOURCES } from '../../shared/sources/registry';

describe('/v1/calendar body (buildCalendar)', () => {
  // Wednesday 25 November 2026 before dawn: Thanksgiving week (Thursday 26).
  const body = buildCalendar(new Date('2026-11-25T04:00:00Z'));
  const of = (id: string) => body.releases.find((r) => r.source === id)!;

  it('matches its response schema and lists every source, soonest first', () => {
    expect(CalendarBody.safeParse(body).success).toBe(true);
    expect(body.releases.map((r) => r.source).sort()).toEqual(SOURCES.map((s) => s.id).sort());
    const times = body.releases.map((r) => r.next_release_at!);
    expect(times).toEqual([...times].sort());
  });

  it('states each release in words and in its time zone, as the publisher schedules it', () => {
    expect(of('eia-gas-storage')).toMatchObject({ schedule: expect.stringMatching(/^Thursdays 10:30 ET/), time_zone: 'America/New_York' });
    expect(of('fred').schedule).toMatch(/Mondays 16:15 ET/);
    expect(of('usgs-mcs').schedule).toMatch(/^annually, late January or early February/);
  });

  it("gives the holiday-shifted dates of the publishers' calendars, marked verified or estimated", () => {
    // WNGSR: Thursday is Thanksgiving -> Wednesday 25, 12:00 EST = 17:00Z, on EIA's schedule page.
    expect(of('eia-gas-storage')).toMatchObject({ next_release_at: '2026-11-25T17:00:00.000Z', estimated: false, shifted_by: 'Thanksgiving Day' });
    // WPSR and the spot prices in it: Wednesday 25, 10:30 EST = 15:30Z.
    expect(of('eia-petroleum')).toMatchObject({ next_release_at: '2026-11-25T15:30:00.000Z', estimated: false, shifted_by: null });
    expect(of('eia-spot')).toMatchObject({ next_release_at: '2026-11-26T04:59:59.000Z', estimated: true }); // no time stated: the end of Wednesday 25 (EST)
    // COT of Tuesday 24: Monday 30, 15:30 EST = 20:30Z, beyond the CFTC schedule verified here.
    expect(of('cftc-cot')).toMatchObject({ next_release_at: '2026-11-30T20:30:00.000Z', estimated: true, shifted_by: 'Thanksgiving Day' });
    // FAS: the week ending Thursday 19 is released Friday 27, 08:30 EST = 13:30Z.
    expect(of('usda-fas-esr')).toMatchObject({ next_release_at: '2026-11-27T13:30:00.000Z', estimated: true });
    // Sources with a check window and no published calendar are estimates, never silently null.
    expect(of('worldbank')).toMatchObject({ estimated: true });
    expect(body.releases.every((r) => r.next_release_at !== null)).toBe(true);
  });
});
