import { existsSync, readdirSync, readFileSync } from 'node:fs';

const HAS_PROC = existsSync('/proc/self/stat');

/**
 * Whether any process of group `pgid` still runs. A killed process stays a zombie until its parent
 * reaps it — for orphaned grandchildren that is init, which may take a second — so on Linux the
 * group's members are read from /proc and zombies do not count; elsewhere `kill(-pgid, 0)`.
 */
export function groupHasLiveMembers(pgid: number): boolean {
  if (!HAS_PROC) return signalReaches(pgid);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone while we looked
    }
    // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') return true;
  }
  return false;
}

function signalReaches(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
