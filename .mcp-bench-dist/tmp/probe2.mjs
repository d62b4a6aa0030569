import { performance } from 'node:perf_hooks';
import { startFakeUpstream } from '../test/support/fake-upstreams.js';
import { startTestNode } from '../test/support/node.js';
const variant = process.argv[2] ?? 'full';
const fake = await startFakeUpstream();
const t = await startTestNode();
const c = variant === 'single' ? null : await startTestNode();
const okOn = (n) => async (m, p, b) => { const r = await n.admin.request(m, p, b === undefined ? {} : { body: b }); if (r.status >= 300) throw new Error(JSON.stringify(r.body)); return r.body.data; };
const ok = okOn(t);
await ok('POST', '/api/v1/plugins/mcp-passthrough/enable'); await t.restart();
const ok2 = okOn(t);
await ok2('PUT','/api/v1/system/settings',{rate_limit_enabled:false});
const priced = variant !== 'free';
await ok2('POST','/api/v1/plugins/mcp-passthrough/configure',{set:{mode:'open'},provider:{id:'f',preset:'openai-compatible',endpoint:fake.openaiUrl,models:[{id:'b',enabled:true,pricing_mode:'manual', ...(priced?{manual_in_per_1m:'1.5',manual_out_per_1m:'6'}:{})}]},active:{provider:'f',model:'b'}});
const key = await ok2('POST','/api/v1/plugins/mcp-passthrough/key-create',{label:'x'});
if (c) {
  const okc = okOn(c);
  await okc('PUT','/api/v1/system/settings',{rate_limit_enabled:false});
  await ok2('POST','/api/v1/contacts',{address:c.node.baseUrl,name:'customer',fee_percent:0,credit_limit:'1000',currency:'VWL'});
  for(;;){ const d=await okc('GET','/api/v1/contacts/pending'); if(d.counts.incoming===1) break; await new Promise(r=>setTimeout(r,50)); }
  await okc('POST',`/api/v1/contacts/${t.node.identity.pubkeyHash}/decisions`,{decisions:[{currency:'VWL',action:'accept',fee:0,credit:'1000'}],is_new_contact:true,contact_address:t.node.baseUrl,contact_name:'seller'});
  for(;;){ const d=await ok2('GET','/api/v1/contacts/customer').catch(()=>null); if(d?.contact?.status==='accepted') break; await new Promise(r=>setTimeout(r,50)); }
  await okc('POST','/api/v1/wallet/send',{address:t.node.baseUrl,amount:'10',currency:'VWL',description:`mcp-topup:${key.key_id}`});
  for(;;){ const d=await ok2('GET','/api/v1/plugins/mcp-passthrough/keys'); if(d.keys[0].balance==='10') break; await new Promise(r=>setTimeout(r,50)); }
}
const url = `${t.node.baseUrl}/p/mcp-passthrough/mcp`;
const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key.token}` };
const init = await fetch(url,{method:'POST',headers:base,body:JSON.stringify({jsonrpc:'2.0',id:0,method:'initialize',params:{protocolVersion:'2025-11-25',capabilities:{},clientInfo:{name:'b',version:'1'}}})}); await init.text();
const headers={...base,'mcp-session-id':init.headers.get('mcp-session-id'),'mcp-protocol-version':'2025-11-25'};
await (await fetch(url,{method:'POST',headers,body:JSON.stringify({jsonrpc:'2.0',method:'notifications/initialized'})})).text();
async function time(label, fn, n=300){ for(let i=0;i<50;i++) await fn(); const a=[]; for(let i=0;i<n;i++){const t0=performance.now(); await fn(); a.push(performance.now()-t0);} a.sort((x,y)=>x-y); console.log(variant, label, a[Math.floor(n/2)].toFixed(3)); }
let id=1;
const tool=(name,args)=>fetch(url,{method:'POST',headers,body:JSON.stringify({jsonrpc:'2.0',id:id++,method:'tools/call',params:{name,arguments:args}})}).then(r=>r.text());
console.log((await tool('chat.completion',{messages:[{role:'user',content:'hi'}],max_output_tokens:16})).slice(0,120));
await time('direct upstream', ()=>fetch(`${fake.openaiUrl}/chat/completions`,{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({model:'b',messages:[{role:'user',content:'hi'}],max_tokens:16})}).then(r=>r.text()));
await time('balance.check', ()=>tool('balance.check',{}));
await time('chat.completion', ()=>tool('chat.completion',{messages:[{role:'user',content:'hi'}],max_output_tokens:16}));
await t.destroy(); if (c) await c.destroy(); await fake.close(); process.exit(0);
