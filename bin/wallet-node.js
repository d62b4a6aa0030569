#!/usr/bin/env -S node --no-node-snapshot
import '../dist/app/wallet-node.js';
